# Intended: buggy: the eviction stage is only wired into the abort path; the resume path preempts the requests with their unconfirmed tail still in the prefix cache, so the resumed request (or any request with the same prefix) gets a hit on KV that was never computed.
# Idioms: a pipeline assembled per path from a list of generator stages folded with functools.reduce, a terminal sink that drains the pipeline and applies the action; abort/resume switch.
# switch: resume_on_fault
"""Fault handler whose work is a list of stages, chosen per path and folded
into one lazy pipeline.  The sink pulls every request through the stages and
applies the path's action to it."""

from __future__ import annotations

import time
from functools import reduce

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine) -> None:
        self.engine = engine

    # -- stages: iterable of requests in, iterable of requests out ---------------

    def evict_tails(self, requests):
        kv = self.engine.scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        for req in requests:
            confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
            ids = {
                block.block_id
                for mgr in managers
                for block in mgr.req_to_blocks.get(req.request_id, ())[confirmed // mgr.block_size :]
                if not block.is_null
            }
            if ids:
                kv.evict_blocks(ids)
            yield req

    def clear_counters(self, requests):
        # The failed step's frame never comes back: nothing is in flight.
        for req in requests:
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            yield req

    # -- the two paths ----------------------------------------------------------

    def _pipeline(self, source):
        stages = [self.clear_counters] if self.resume_on_fault else [self.evict_tails]
        return reduce(lambda stream, stage: stage(stream), stages, source)

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        running = list(sched.running)
        survivors = list(self._pipeline(iter(running)))

        if self.resume_on_fault:
            ts = time.monotonic()
            for req in reversed(survivors):
                sched.running.remove(req)
                sched._preempt_request(req, ts)
        else:
            aborted = sched.finish_requests([r.request_id for r in survivors], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
