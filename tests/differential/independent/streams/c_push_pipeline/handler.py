# Intended: correct.
# Idioms: push-style coroutine pipeline (source -> broadcast -> [expand -> collect(evict), collect(abort or requeue)]), coroutines primed by a decorator, work applied on close() propagated down the chain, eviction branch listed and closed first; abort/resume switch.
# switch: resume_after_fault
"""Fault handler as a push pipeline (see pipes_ft.py)."""

from __future__ import annotations

import time

from pipes_ft import broadcast, collect, expand, source
from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_after_fault = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def _tail_ids(self, req):
        managers = self.engine.scheduler.kv_cache_manager.coordinator.single_type_managers
        confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
        for mgr in managers:
            for block in mgr.req_to_blocks.get(req.request_id, ())[confirmed // mgr.block_size :]:
                if not block.is_null:
                    yield block.block_id

    def _evict(self, block_ids):
        if block_ids:
            self.engine.scheduler.kv_cache_manager.evict_blocks(set(block_ids))

    def _abort(self, requests):
        sched = self.engine.scheduler
        aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _requeue(self, requests):
        sched = self.engine.scheduler
        ts = time.monotonic()
        for req in reversed(requests):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

    def on_fault(self, exc: BaseException) -> None:
        act = self._requeue if self.resume_after_fault else self._abort
        pipeline = broadcast(
            [
                expand(self._tail_ids, collect(self._evict)),
                collect(act),
            ]
        )
        source(list(self.engine.scheduler.running), pipeline)
