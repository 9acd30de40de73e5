# Intended: buggy: the resume path preempts with drop_stale_output=True, so the request is marked to drop its next output frame as stale; the failed step's frame never arrives, so the first good frame after resume is thrown away (and num_stale_output_tokens is left set).
# Idioms: mutual recursion between an even/odd pair of helpers that walk the running list two at a time, lru_cache on the boundary-block arithmetic, early-return base cases; abort or resume.
# switch: resume_on_fault
"""Fault handler that walks the running requests with a pair of mutually recursive helpers."""

import time
from functools import lru_cache

from vllm.v1.request import RequestStatus


@lru_cache(maxsize=256)
def _boundary_block(num_computed: int, num_in_flight: int, block_size: int) -> int:
    return (num_computed - num_in_flight) // block_size


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        self._sched = self.engine.scheduler
        self._managers = self._sched.kv_cache_manager.coordinator.single_type_managers
        self._now = time.monotonic()
        self._aborted = []
        self._even(list(self._sched.running)[::-1])
        if self._aborted:
            self.engine._send_abort_outputs(self._aborted)

    def _even(self, reqs):
        if not reqs:
            return
        self._settle(reqs[0])
        self._odd(reqs[1:])

    def _odd(self, reqs):
        if not reqs:
            return
        self._settle(reqs[0])
        self._even(reqs[1:])

    def _settle(self, req):
        ids = set()
        for m in self._managers:
            start = _boundary_block(req.num_computed_tokens, req.num_in_flight_tokens, m.block_size)
            ids.update(b.block_id for b in m.req_to_blocks.get(req.request_id, [])[start:] if not b.is_null)
        if ids:
            self._sched.kv_cache_manager.evict_blocks(ids)
        if self.resume_on_fault:
            self._sched.running.remove(req)
            # The failed step's output is stale: tell the scheduler to discard it.
            self._sched._preempt_request(req, self._now, drop_stale_output=True)
            req.num_in_flight_tokens = 0
        else:
            self._aborted += self._sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED)
