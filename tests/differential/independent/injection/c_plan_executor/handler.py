# Intended: correct.
# Idioms: a planner/executor split with a frozen dataclass plan, Protocol interfaces for the
# planner, the executor's evictor and releaser, default collaborators chosen when None is
# passed, composition (the handler owns a planner and an executor, inherits nothing).
# switch: resume
"""Fault handling in two phases: plan (pure reads) then execute (writes)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class RequestPlan:
    request: Any
    tail_block_ids: frozenset[int]


@dataclass(frozen=True)
class FaultPlan:
    requests: tuple[RequestPlan, ...] = field(default_factory=tuple)

    @property
    def block_ids(self) -> set[int]:
        ids: set[int] = set()
        for rp in self.requests:
            ids |= rp.tail_block_ids
        return ids


class Planner(Protocol):
    def plan(self, scheduler: Any) -> FaultPlan: ...


class Evictor(Protocol):
    def evict(self, block_ids: set[int]) -> None: ...


class Releaser(Protocol):
    def release(self, plan: FaultPlan, resume: bool) -> None: ...


class TailPlanner:
    def plan(self, scheduler: Any) -> FaultPlan:
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        plans = []
        for req in scheduler.running:
            confirmed = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
            ids = frozenset(
                b.block_id
                for m in managers
                for b in (m.req_to_blocks.get(req.request_id) or [])[confirmed // m.block_size :]
                if not b.is_null
            )
            plans.append(RequestPlan(req, ids))
        return FaultPlan(tuple(plans))


class PrefixCacheEvictor:
    def __init__(self, kv_cache_manager: Any) -> None:
        self.kv_cache_manager = kv_cache_manager

    def evict(self, block_ids: set[int]) -> None:
        if block_ids:
            self.kv_cache_manager.evict_blocks(block_ids)


class SchedulerReleaser:
    def __init__(self, engine: Any, clock: Any = time.monotonic) -> None:
        self.engine = engine
        self.clock = clock

    def release(self, plan: FaultPlan, resume: bool) -> None:
        scheduler = self.engine.scheduler
        requests = [rp.request for rp in plan.requests]
        if not resume:
            aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        stamp = self.clock()
        for request in reversed(requests):
            scheduler.running.remove(request)
            scheduler._preempt_request(request, stamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0


class PlanExecutor:
    def __init__(self, evictor: Evictor, releaser: Releaser) -> None:
        self.evictor = evictor
        self.releaser = releaser

    def execute(self, plan: FaultPlan, resume: bool) -> None:
        self.evictor.evict(plan.block_ids)  # while the blocks are still held
        self.releaser.release(plan, resume)


class FaultHandler:
    resume = False

    def __init__(self, engine: Any, planner: Planner | None = None, executor: PlanExecutor | None = None) -> None:
        self.engine = engine
        self.planner = planner or TailPlanner()
        self.executor = executor or PlanExecutor(
            PrefixCacheEvictor(engine.scheduler.kv_cache_manager), SchedulerReleaser(engine)
        )

    def on_fault(self, exc: BaseException) -> None:
        plan = self.planner.plan(self.engine.scheduler)
        self.executor.execute(plan, resume=self.resume)
