# Intended: correct.
# Idioms: a fresh asyncio event loop driven by run_until_complete and closed in a finally, loop.run_in_executor over a ThreadPoolExecutor for the per-request scans, asyncio.wait_for with a timeout, an asyncio.Lock around the mutating section, an abort/resume switch.
# switch: resume_requests
"""Fault handler running its recovery on a private event loop.

on_fault may be called from a thread that has no loop (the engine core busy
loop), so it creates one, runs the recovery to completion and closes it.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

from vllm.v1.request import RequestStatus


def _dirty_ids(managers, request):
    boundary = request.num_computed_tokens - request.num_in_flight_tokens
    found = []
    for mgr in managers:
        owned = mgr.req_to_blocks.get(request.request_id, ())
        for pos in range(max(boundary, 0) // mgr.block_size, len(owned)):
            blk = owned[pos]
            if not blk.is_null:
                found.append(blk.block_id)
    return request, found


class FaultHandler:
    resume_requests = False
    scan_timeout_s = 15.0

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(asyncio.wait_for(self._recover(loop), self.scan_timeout_s))
        finally:
            loop.close()

    async def _recover(self, loop):
        sched = self.engine.scheduler
        managers = list(sched.kv_cache_manager.coordinator.single_type_managers)
        mutate = asyncio.Lock()
        with ThreadPoolExecutor(max_workers=4) as pool:
            scans = [loop.run_in_executor(pool, _dirty_ids, managers, r) for r in list(sched.running)]
            results = await asyncio.gather(*scans)

        async with mutate:
            dirty = {bid for _, ids in results for bid in ids}
            if dirty:
                sched.kv_cache_manager.evict_blocks(dirty)
            requests = [req for req, _ in results]
            if self.resume_requests:
                now = time.monotonic()
                keep = set(map(id, requests))
                sched.running = [r for r in sched.running if id(r) not in keep]
                for req in reversed(requests):
                    sched._preempt_request(req, now)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
            else:
                aborted = sched.finish_requests(
                    [req.request_id for req in requests], RequestStatus.FINISHED_ABORTED
                )
                self.engine._send_abort_outputs(aborted)
