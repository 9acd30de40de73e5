"""Receivers for the fault path: evict the unconfirmed tail, then requeue."""

import time

from signal_table import connect


@connect("fault.before_requeue")
def evict_tail(scheduler, requests):
    kv = scheduler.kv_cache_manager
    dirty = set()
    for req in requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            for blk in (mgr.req_to_blocks.get(req.request_id) or [])[confirmed // mgr.block_size:]:
                if not blk.is_null:
                    dirty.add(blk.block_id)
    kv.evict_blocks(dirty)


@connect("fault.requeue")
def requeue(scheduler, requests):
    ts = time.monotonic()
    for req in reversed(requests):
        scheduler.running.remove(req)
        # The failed step's tokens must not be applied to the reset request:
        # drop its output instead of delivering it (as reset_prefix_cache does).
        scheduler._preempt_request(req, ts, drop_stale_output=True)
