# Intended: correct.
# Idioms: planning package of frozen dataclasses updated with dataclasses.replace, itertools.groupby over (group, request) keys, attrgetter with several names, closures returning steps, functools.reduce to thread state through the steps, abort/resume switch.
# switch: RESUME
from __future__ import annotations

import time
from functools import reduce

from vllm.v1.request import RequestStatus

from ftplan import initial_state, with_dirty_tail, with_mode


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def plan(self):
        steps = (with_dirty_tail, with_mode(self.RESUME))
        return reduce(lambda state, step: step(state), steps, initial_state(self.engine.scheduler))

    def on_fault(self, exc):
        sched = self.engine.scheduler
        state = self.plan()
        victims = list(sched.running)
        sched.kv_cache_manager.evict_blocks(set(state.evict))
        if state.mode == "abort":
            aborted = sched.finish_requests(state.confirmed.keys(), RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        sched.running = []
        when = time.monotonic()
        for req in victims[::-1]:
            sched._preempt_request(req, when)
            req.num_in_flight_tokens = req.num_stale_output_tokens = 0
