# Intended: buggy: it evicts every block the faulted requests hold, from block 0, not just the unconfirmed tail, so clean prefix blocks written by successful steps are dropped from the prefix cache and the resumed request recomputes its whole prefix.
# Idioms: recursive generators (yield from) over requests, groups and block indices in a helper module; abort or resume.
# switch: resume
"""Fault handler that evicts the faulted requests' KV from the prefix cache before abort/resume."""

import time

from vllm.v1.request import RequestStatus

from chainwalk import running_blocks


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        ids = set(running_blocks(running, sched.kv_cache_manager.coordinator.single_type_managers))
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        if not self.resume:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            )
            return
        t = time.monotonic()
        for r in reversed(running):
            sched.running.remove(r)
            sched._preempt_request(r, t)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
