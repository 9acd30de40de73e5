# Intended: correct.
# Idioms: a helper class that splits the (request x KV-cache group) grid along its longer side recursively and unions the cells' sets on the way up; single-cell base case; abort or resume.
# switch: RESUME_ON_FAULT
"""Fault handler evicting the unconfirmed KV tail found by a recursive grid split."""

import time

from vllm.v1.request import RequestStatus

from gridsplit import TailGrid


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)
        stale = TailGrid(running, kv.coordinator.single_type_managers).collect()
        if stale:
            kv.evict_blocks(stale)
        if self.RESUME_ON_FAULT:
            self._preempt_all(sched, running, time.monotonic())
        else:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            )

    @staticmethod
    def _preempt_all(sched, requests, when):
        if not requests:
            return
        *rest, last = requests
        sched.running.remove(last)
        sched._preempt_request(last, when)
        last.num_in_flight_tokens = 0
        last.num_stale_output_tokens = 0
        FaultHandler._preempt_all(sched, rest, when)
