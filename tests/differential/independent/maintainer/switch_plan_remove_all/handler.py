# Intended: correct.
# Idioms: abort/resume switch; a dataclass plan per request collected before anything is freed; null blocks filtered out; remove_all list rebuild of running; preempt then reset both counters.
# switch: preempt_on_fault
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from vllm.logger import init_logger
from vllm.v1.core.sched.utils import remove_all
from vllm.v1.request import Request, RequestStatus

logger = init_logger(__name__)


@dataclass
class _RecoveryPlan:
    request: Request
    dirty_block_ids: set[int] = field(default_factory=set)


class FaultHandler:
    preempt_on_fault: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        plans = [self._make_plan(request) for request in scheduler.running]

        dirty_block_ids: set[int] = set()
        for plan in plans:
            dirty_block_ids |= plan.dirty_block_ids
        if dirty_block_ids:
            scheduler.kv_cache_manager.evict_blocks(dirty_block_ids)

        if self.preempt_on_fault:
            self._preempt(scheduler, [plan.request for plan in plans])
        else:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
        logger.warning(
            "[FT] Recovered from %s: %d requests, %d blocks evicted.",
            type(exc).__name__,
            len(plans),
            len(dirty_block_ids),
        )

    def _make_plan(self, request: Request) -> _RecoveryPlan:
        plan = _RecoveryPlan(request)
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for manager in coordinator.single_type_managers:
            req_blocks = manager.req_to_blocks.get(request.request_id, ())
            for block in req_blocks[num_confirmed // manager.block_size :]:
                # Sliding-window groups pad skipped positions with the null
                # block; it is never cached.
                if block.is_null:
                    continue
                plan.dirty_block_ids.add(block.block_id)
        return plan

    def _preempt(self, scheduler: Any, requests: list[Request]) -> None:
        scheduler.running = remove_all(scheduler.running, set(requests))
        timestamp = time.monotonic()
        for request in reversed(requests):
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
