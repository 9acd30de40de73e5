# Intended: buggy: on resume it zeroes every request counter whose name starts with num_stale_ or num_output_, which misses num_in_flight_tokens, so the requeued request keeps the lost step's in-flight count and its confirmed boundary is off.
# Idioms: attribute names discovered with vars() and filtered by prefix, setattr over the computed names, a class-level dispatch dict of unbound methods.
# switch: RESUME
"""Fault handler that clears lost-step bookkeeping by attribute-name prefix."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

# Request bookkeeping that refers to output of a step that never completed.
_LOST_STEP_PREFIXES = ("num_stale_", "num_output_")


def _lost_step_fields(request):
    return [name for name, value in vars(request).items() if name.startswith(_LOST_STEP_PREFIXES) and isinstance(value, int)]


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        ids = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            for req in requests:
                held = mgr.req_to_blocks.get(req.request_id, [])
                first = (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size
                ids.update(b.block_id for b in held[first:] if not b.is_null)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        self._PATHS[bool(self.RESUME)](self, sched, requests)

    def _abort(self, sched, requests):
        if requests:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            )

    def _requeue(self, sched, requests):
        stamp = time.monotonic()
        for req in reversed(requests):
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            for field in _lost_step_fields(req):
                setattr(req, field, 0)

    _PATHS = {False: _abort, True: _requeue}
