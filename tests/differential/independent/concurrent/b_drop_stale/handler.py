# Intended: buggy: on resume it preempts with drop_stale_output=True, so the request is marked to drop a stale frame that never arrives and the first good output frame after recovery is thrown away.
# Idioms: asyncio.run with asyncio.gather over KV-cache groups run in worker threads via asyncio.to_thread, an asyncio.Lock around the mutations, an abort/resume switch.
# switch: resume
"""Fault handler: concurrent per-group scans, then abort or preempt."""

from __future__ import annotations

import asyncio
import time

from vllm.v1.request import RequestStatus


def _group_scan(manager, requests):
    out = set()
    for req in requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        held = manager.req_to_blocks.get(req.request_id, [])
        out.update(b.block_id for b in held[confirmed // manager.block_size :] if not b.is_null)
    return out


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        asyncio.run(self._recover())

    async def _recover(self):
        sched = self.engine.scheduler
        requests = list(sched.running)
        lock = asyncio.Lock()
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        scans = await asyncio.gather(*(asyncio.to_thread(_group_scan, m, requests) for m in managers))
        async with lock:
            dirty = set().union(*scans)
            if dirty:
                sched.kv_cache_manager.evict_blocks(dirty)
            if not self.resume:
                self.engine._send_abort_outputs(
                    sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
                )
                return
            ts = time.monotonic()
            for req in reversed(requests):
                sched.running.remove(req)
                # Whatever the lost step produced must not reach the client.
                sched._preempt_request(req, ts, drop_stale_output=True)
                req.num_in_flight_tokens = 0
