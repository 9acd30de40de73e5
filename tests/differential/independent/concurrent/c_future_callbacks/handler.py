# Intended: correct.
# Idioms: Future.add_done_callback feeding a lock-protected accumulator in a helper module, executor.shutdown(wait=True) as the join point, contextlib.suppress around an optional engine hook, abort/resume switch.
# switch: resume
"""Fault handler whose scans report back through done-callbacks."""

from __future__ import annotations

import contextlib
import time
from concurrent.futures import ThreadPoolExecutor

from vllm.v1.request import RequestStatus

from ft_collect import BlockIdSink


def scan_request(managers, req):
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    ids = []
    for m in managers:
        for i, blk in enumerate(m.req_to_blocks.get(req.request_id, ())):
            if (i + 1) * m.block_size > confirmed and not blk.is_null:
                ids.append(blk.block_id)
    return ids


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        victims = list(sched.running)
        sink = BlockIdSink()

        executor = ThreadPoolExecutor(max_workers=2)
        for req in victims:
            executor.submit(scan_request, managers, req).add_done_callback(sink.on_done)
        executor.shutdown(wait=True)  # every callback has run once this returns

        dirty = sink.drain()
        if dirty:
            sched.kv_cache_manager.evict_blocks(dirty)

        if self.resume:
            now = time.monotonic()
            for req in reversed(victims):
                sched.running.remove(req)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            return

        aborted = sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
        with contextlib.suppress(AttributeError):
            self.engine._send_abort_outputs(aborted)
