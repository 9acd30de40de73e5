# Intended: correct.
# Idioms: transaction-like batch used as a context manager: evictions, preempts and counter
# Idioms: writes are staged in order and applied on exit, counter writes journalled for rollback;
# Idioms: resume-only handler (no switch).
"""Resume after a failed step: every running request goes back to waiting and will
re-hit its clean prefix; the blocks the failed step may have touched are evicted
first so that nobody hits them."""

from __future__ import annotations

import time

from kv_txn import SchedulerTransaction


def tail_block_ids(scheduler, request) -> set[int]:
    """Block ids, in every KV-cache group, from the block holding the confirmed
    boundary onwards."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    ids: set[int] = set()
    for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
        held = mgr.req_to_blocks.get(request.request_id, [])
        ids.update(b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null)
    return ids


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        timestamp = time.monotonic()
        victims = list(scheduler.running)

        with SchedulerTransaction(scheduler) as txn:
            for req in victims:
                txn.evict(tail_block_ids(scheduler, req), label=f"evict tail of {req.request_id}")
            # Newest first: preempt prepends to the waiting queue.
            for req in reversed(victims):
                txn.call(f"dequeue {req.request_id}", lambda r=req: scheduler.running.remove(r))
                txn.call(f"preempt {req.request_id}", lambda r=req: scheduler._preempt_request(r, timestamp))
                txn.set_field(req, "num_in_flight_tokens", 0)
                txn.set_field(req, "num_stale_output_tokens", 0)
