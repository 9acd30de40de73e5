# Intended: buggy: the eviction stage only passes blocks through when the VLLM_FT_SCRUB_UNCONFIRMED_KV environment flag is set, which is off by default, so with defaults nothing is evicted and every dirty block stays in the prefix cache.
# Idioms: a helper module of generator stages, a gate stage that yields from its input only when enabled (an environment flag, default off), the sink drains the gated stream then aborts or requeues; abort/resume switch.
# switch: resume
"""Fault handler with an opt-in scrub of the unconfirmed tail (see scrub_flow)."""

from __future__ import annotations

import time

from scrub_flow import gated, scrub_enabled, tail_blocks
from vllm.v1.request import RequestStatus


class FaultHandler:
    resume = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self.scrub = scrub_enabled()

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)

        stream = gated(tail_blocks(running, kv.coordinator.single_type_managers), self.scrub)
        dirty = set(stream)
        if dirty:
            kv.evict_blocks(dirty)

        if self.resume:
            now = time.monotonic()
            for req in reversed(running):
                sched.running.remove(req)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
