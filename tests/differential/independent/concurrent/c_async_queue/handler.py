# Intended: correct.
# Idioms: asyncio.run, an asyncio.Queue between a producer coroutine and a consumer coroutine with a None sentinel, asyncio.wait_for around asyncio.gather of both, a dict of per-request results, an abort/resume switch.
# switch: keep_requests
"""Fault handler: a producer coroutine emits per-request tails, a consumer collects them."""

from __future__ import annotations

import asyncio
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    keep_requests = False

    def __init__(self, engine, timeout_s: float = 20.0):
        self.engine = engine
        self.timeout_s = timeout_s

    def on_fault(self, exc):
        tails = asyncio.run(self._collect_tails())
        self._apply(tails)

    async def _collect_tails(self) -> dict[str, set[int]]:
        sched = self.engine.scheduler
        q: asyncio.Queue = asyncio.Queue()
        tails: dict[str, set[int]] = {}

        async def producer():
            for req in list(sched.running):
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                    start = confirmed // mgr.block_size
                    for blk in mgr.req_to_blocks.get(req.request_id, [])[start:]:
                        if not blk.is_null:
                            await q.put((req.request_id, blk.block_id))
                await asyncio.sleep(0)  # let the consumer drain between requests
            await q.put(None)

        async def consumer():
            while (item := await q.get()) is not None:
                rid, block_id = item
                tails.setdefault(rid, set()).add(block_id)

        await asyncio.wait_for(asyncio.gather(producer(), consumer()), self.timeout_s)
        return tails

    def _apply(self, tails: dict[str, set[int]]) -> None:
        sched = self.engine.scheduler
        everything = set().union(*tails.values()) if tails else set()
        if everything:
            sched.kv_cache_manager.evict_blocks(everything)

        victims = list(sched.running)
        if self.keep_requests:
            sched.running.clear()
            stamp = time.monotonic()
            for req in reversed(victims):
                sched._preempt_request(req, stamp)
                req.num_in_flight_tokens = req.num_stale_output_tokens = 0
        else:
            gone = sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(gone)
