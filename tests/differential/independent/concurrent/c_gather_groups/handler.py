# Intended: correct.
# Idioms: asyncio.run driving one coroutine from the synchronous on_fault, asyncio.gather over the running requests and, nested, over the KV-cache groups, a set union of the gathered results, an abort/resume switch.
# switch: resume_on_fault
"""Fault handler that walks the running requests' KV-cache groups as coroutines.

The scans are pure reads of the scheduler's bookkeeping, so they are gathered
concurrently; every mutation (eviction, abort or preemption) happens afterwards,
in one place, once all scans have finished.
"""

from __future__ import annotations

import asyncio
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    #: False: abort every running request; True: send it back to waiting.
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        # The engine busy loop is synchronous: run the recovery to completion here.
        asyncio.run(self._recover())

    async def _recover(self):
        sched = self.engine.scheduler
        running = list(sched.running)
        tails = await asyncio.gather(*(self._request_tail(sched, req) for req in running))
        dirty = set().union(*tails)
        if dirty:
            sched.kv_cache_manager.evict_blocks(dirty)

        if self.resume_on_fault:
            self._send_back(sched, running)
        else:
            aborted = sched.finish_requests(
                [req.request_id for req in running], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)

    async def _request_tail(self, sched, request):
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        per_group = await asyncio.gather(
            *(self._group_tail(mgr, request) for mgr in managers)
        )
        return set().union(*per_group)

    @staticmethod
    async def _group_tail(manager, request):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        first = max(confirmed, 0) // manager.block_size
        blocks = manager.req_to_blocks.get(request.request_id, ())
        return {blk.block_id for blk in blocks[first:] if not blk.is_null}

    @staticmethod
    def _send_back(sched, running):
        now = time.monotonic()
        # Reverse order so the waiting queue ends up in the original FIFO order.
        for request in reversed(running):
            sched.running.remove(request)
            sched._preempt_request(request, now)
            # The failed step's output never arrives: nothing is stale.
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
