# Intended: buggy: it gathers the tails from the first KV-cache group only, so with a second group (sliding window) that group's unconfirmed blocks stay in the prefix cache.
# Idioms: asyncio.run, asyncio.gather over the running requests, asyncio.to_thread for the blocking eviction call, an abort/resume switch.
# switch: resume_on_fault
"""Fault handler gathering each request's dirty tail concurrently."""

from __future__ import annotations

import asyncio
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        asyncio.run(self._handle())

    async def _handle(self):
        sched = self.engine.scheduler
        running = list(sched.running)
        # The attention group: that is where the prefix cache hashes live.
        attn = sched.kv_cache_manager.coordinator.single_type_managers[0]

        async def tail(req):
            first = (req.num_computed_tokens - req.num_in_flight_tokens) // attn.block_size
            return [b.block_id for b in attn.req_to_blocks.get(req.request_id, [])[first:] if not b.is_null]

        dirty = {bid for ids in await asyncio.gather(*map(tail, running)) for bid in ids}
        if dirty:
            await asyncio.to_thread(sched.kv_cache_manager.evict_blocks, dirty)

        if self.resume_on_fault:
            ts = time.monotonic()
            for req in reversed(running):
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
