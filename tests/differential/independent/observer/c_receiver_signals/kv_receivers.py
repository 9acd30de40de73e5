"""Receivers for the fault signals: KV-cache hygiene before requests are aborted."""

from __future__ import annotations

from ft_signals import after_abort, before_abort, receiver


@receiver(before_abort)
def evict_unconfirmed_tail(scheduler, *, requests):
    """Drop from the prefix cache the blocks written by the lost step.

    Tokens ``[num_computed_tokens - num_in_flight_tokens, num_computed_tokens)``
    were scheduled but never confirmed; the block holding that boundary and
    every later one may hold garbage.  Runs while the requests still hold
    their blocks.
    """
    kv = scheduler.kv_cache_manager
    evict = set()
    for req in requests:
        boundary = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, ())
            evict.update(
                blk.block_id
                for idx, blk in enumerate(blocks)
                if idx >= boundary // mgr.block_size and not blk.is_null
            )
    kv.evict_blocks(evict)
    return len(evict)


@receiver(after_abort)
def report_aborted(scheduler, *, requests, engine):
    engine._send_abort_outputs(requests)
