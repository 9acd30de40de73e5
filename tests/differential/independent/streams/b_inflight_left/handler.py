# Intended: buggy: on the resume path it clears num_stale_output_tokens after the preempt but leaves num_in_flight_tokens at the lost step's count, so the requeued request's confirmed boundary is off by the lost step.
# Idioms: coroutine stages fed with send() (a tail scanner that forwards block ids to an evicting accumulator), primed with next(), flushed by close() before the abort or requeue; abort/resume switch.
# switch: RESUME_ON_FAULT
"""Fault handler driven by send(): requests go in, block ids flow to an
accumulator that evicts them all when closed."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


def evictor(kv):
    ids = set()
    try:
        while True:
            ids.add((yield))
    finally:
        if ids:
            kv.evict_blocks(ids)


def scanner(managers, target):
    try:
        while True:
            req = yield
            confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
            for mgr in managers:
                for block in mgr.req_to_blocks.get(req.request_id, ())[confirmed // mgr.block_size :]:
                    if not block.is_null:
                        target.send(block.block_id)
    finally:
        target.close()


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        sink = evictor(kv)
        next(sink)
        scan = scanner(kv.coordinator.single_type_managers, sink)
        next(scan)
        running = list(sched.running)
        for req in running:
            scan.send(req)
        scan.close()  # flushes the evictor

        if self.RESUME_ON_FAULT:
            ts = time.monotonic()
            for req in reversed(running):
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
