# Intended: correct.
# Idioms: helper module of pure functions, NamedTuple group views, itertools.product + starmap over (request, group) pairs, frozenset union, tiny imperative shell with an abort/resume switch.
# switch: resume_requests
from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

from tailplan import group_views, plan


class FaultHandler:
    #: False: abort every running request; True: send them back to waiting.
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = tuple(sched.running)
        doomed = plan(victims, group_views(sched.kv_cache_manager))
        if doomed:
            sched.kv_cache_manager.evict_blocks(set(doomed))
        if self.resume_requests:
            self._requeue(sched, victims)
        else:
            aborted = sched.finish_requests(
                [r.request_id for r in victims], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _requeue(sched, victims):
        now = time.monotonic()
        leaving = set(victims)
        sched.running = [r for r in sched.running if r not in leaving]
        for req in reversed(victims):
            sched._preempt_request(req, now)
            # The failed step's frame never arrives: nothing is in flight and
            # nothing stale will be delivered.
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
