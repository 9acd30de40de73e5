# Intended: correct.
# Idioms: recursive generators chained with yield from (over requests, groups and block indices) in a helper module; the handler drains them into a set, evicts once, then aborts or resumes.
# switch: RESUME
"""Evict-then-abort/resume fault handler built on recursive generators."""

import time

from vllm.v1.request import RequestStatus

from tailwalk import over_requests


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)
        ids = set(over_requests(running, kv.coordinator.single_type_managers))
        if ids:
            kv.evict_blocks(ids)
        if not self.RESUME:
            self.engine._send_abort_outputs(
                sched.finish_requests(
                    [r.request_id for r in running], RequestStatus.FINISHED_ABORTED
                )
            )
            return
        now = time.monotonic()
        for req in reversed(running):
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
