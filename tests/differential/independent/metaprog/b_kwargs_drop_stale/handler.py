# Intended: buggy: on resume it preempts with drop_stale_output=True and leaves the lost step's counters in place, so the failed step's frame (which never arrives) is awaited as stale and the first good output frame after recovery is dropped instead.
# Idioms: keyword arguments for scheduler calls assembled in a per-path dict and applied with operator.methodcaller(**kwargs), path method chosen with getattr on an f-string.
# switch: RESUME
"""Fault handler with per-path call options kept in a table."""

from __future__ import annotations

import time
from operator import methodcaller

from vllm.v1.request import RequestStatus

_CALL_OPTIONS = {
    "abort": {},
    # The lost step's output is garbage: make sure it is never delivered.
    "resume": {"drop_stale_output": True},
}


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        self._evict_unconfirmed(sched, requests)
        path = "resume" if self.RESUME else "abort"
        getattr(self, f"_{path}")(sched, requests, **_CALL_OPTIONS[path])

    @staticmethod
    def _evict_unconfirmed(sched, requests):
        ids = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            for req in requests:
                start = (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size
                for blk in mgr.req_to_blocks.get(req.request_id, [])[start:]:
                    if not blk.is_null:
                        ids.add(blk.block_id)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)

    def _abort(self, sched, requests, **options):
        if requests:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            )

    def _resume(self, sched, requests, **options):
        stamp = time.monotonic()
        for req in reversed(requests):
            sched.running.remove(req)
            methodcaller("_preempt_request", req, stamp, **options)(sched)
