# Intended: buggy: the resume path preempts with drop_stale_output=True instead of resetting num_stale_output_tokens, so the first good output frame after recovery is dropped.
# Idioms: functools.partial over a bound method, dict of path callables, abort/resume switch.
# switch: resume
"""Abort or resume; the resume preempt is pre-configured with functools.partial."""

from __future__ import annotations

import time
from functools import partial

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume = True

    def __init__(self, engine) -> None:
        self.engine = engine

    def _evict_tails(self) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        ids: set[int] = set()
        for req in sched.running:
            keep = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][keep // mgr.block_size :])
        kv.evict_blocks(ids)

    def _abort(self) -> None:
        sched = self.engine.scheduler
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    def _resume(self) -> None:
        sched = self.engine.scheduler
        preempt = partial(sched._preempt_request, timestamp=time.monotonic(), drop_stale_output=True)
        requests, sched.running = sched.running, []
        for req in requests:
            preempt(req)
            req.num_in_flight_tokens = 0

    def on_fault(self, exc: BaseException) -> None:
        self._evict_tails()
        {True: self._resume, False: self._abort}[bool(self.resume)]()
