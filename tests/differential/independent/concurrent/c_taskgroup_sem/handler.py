# Intended: correct.
# Idioms: asyncio.TaskGroup with an asyncio.Semaphore bounding the scans, closures capturing the scheduler, asyncio.to_thread for each request's tail scan, an asyncio.Lock serialising each request's evict-then-release step on the loop thread, an abort/resume switch.
# switch: RESUME_ON_FAULT
"""Per-request recovery tasks: each task scans its request's dirty tail in a
worker thread, then evicts it and releases the request (abort or preempt)
under a shared lock."""

from __future__ import annotations

import asyncio
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME_ON_FAULT = False
    PARALLELISM = 4

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        aborted = asyncio.run(self._run())
        if aborted:
            self.engine._send_abort_outputs(aborted)

    async def _run(self):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        gate = asyncio.Semaphore(self.PARALLELISM)
        mutex = asyncio.Lock()
        stamp = time.monotonic()
        aborted = []
        resume = self.RESUME_ON_FAULT

        def tail_of(req):
            confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
            return {
                blk.block_id
                for mgr in kv.coordinator.single_type_managers
                for blk in mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size :]
                if not blk.is_null
            }

        def release(req, dirty):
            if dirty:
                kv.evict_blocks(dirty)
            if resume:
                sched.running.remove(req)
                sched._preempt_request(req, stamp)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            else:
                aborted.extend(sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED))

        async def one(req):
            async with gate:
                dirty = await asyncio.to_thread(tail_of, req)
            # Mutations stay on the loop's (the caller's) thread, one request at a time.
            async with mutex:
                release(req, dirty)

        async with asyncio.TaskGroup() as tg:
            for req in list(sched.running):
                tg.create_task(one(req))
        return aborted
