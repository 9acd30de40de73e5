# Intended: buggy: only the abort path evicts the unconfirmed tail; the resume path preempts straight away, so the resumed request (or any request sharing its prefix) gets a prefix hit on KV the failed step never wrote.
# Idioms: asyncio.run with asyncio.gather over the requests, asyncio.wait_for with a timeout, an asyncio.Lock around the per-request release, an abort/resume switch.
# switch: resume_after_fault
"""Fault handler: abort cleans up after itself, resume hands requests straight back."""

from __future__ import annotations

import asyncio
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_after_fault = False
    timeout_s = 10.0

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        aborted = asyncio.run(asyncio.wait_for(self._release_all(), self.timeout_s))
        if aborted:
            self.engine._send_abort_outputs(aborted)

    async def _release_all(self):
        sched = self.engine.scheduler
        lock = asyncio.Lock()
        stamp = time.monotonic()
        results = await asyncio.gather(
            *(self._release(sched, req, lock, stamp) for req in reversed(list(sched.running)))
        )
        return [r for group in results for r in group]

    async def _release(self, sched, req, lock, stamp):
        async with lock:
            if self.resume_after_fault:
                # The request recomputes from scratch after the preempt anyway.
                sched.running.remove(req)
                sched._preempt_request(req, stamp)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
                return []
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            dirty = set()
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                held = mgr.req_to_blocks.get(req.request_id, [])
                dirty.update(b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null)
            if dirty:
                sched.kv_cache_manager.evict_blocks(dirty)
            return sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED)
