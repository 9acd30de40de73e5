# Intended: buggy: the resume path never evicts the unconfirmed tail (only the abort plan gets the eviction step), so dirty blocks stay in the prefix cache on resume.
# Idioms: Java-style builder producing a RecoveryPlan of steps, fluent API, switch between abort and resume plans.
# switch: resumeRequests
from __future__ import annotations

import time
from typing import Callable, List

from vllm.v1.request import RequestStatus


class RecoveryPlan:
    def __init__(self, steps: List[Callable[[], None]], description: str) -> None:
        self._steps = steps
        self.description = description

    def run(self) -> None:
        for step in self._steps:
            step()


class RecoveryPlanBuilder:
    def __init__(self, engine) -> None:
        self._engine = engine
        self._steps: List[Callable[[], None]] = []
        self._names: List[str] = []

    def withTailEviction(self) -> "RecoveryPlanBuilder":
        self._steps.append(self._evictTails)
        self._names.append("evict-tails")
        return self

    def withAbort(self) -> "RecoveryPlanBuilder":
        self._steps.append(self._abortAll)
        self._names.append("abort")
        return self

    def withPreemption(self) -> "RecoveryPlanBuilder":
        self._steps.append(self._preemptAll)
        self._names.append("preempt")
        return self

    def build(self) -> RecoveryPlan:
        return RecoveryPlan(list(self._steps), " -> ".join(self._names))

    # -- steps -------------------------------------------------------------
    def _evictTails(self) -> None:
        scheduler = self._engine.scheduler
        kvm = scheduler.kv_cache_manager
        toEvict: set[int] = set()
        for request in scheduler.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for stm in kvm.coordinator.single_type_managers:
                blocks = stm.req_to_blocks.get(request.request_id, [])
                toEvict.update(b.block_id for b in blocks[confirmed // stm.block_size:])
        if toEvict:
            kvm.evict_blocks(toEvict)

    def _abortAll(self) -> None:
        aborted = self._engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self._engine._send_abort_outputs(aborted)

    def _preemptAll(self) -> None:
        scheduler = self._engine.scheduler
        now = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0


class FaultHandler:
    resumeRequests = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc) -> None:
        builder = RecoveryPlanBuilder(self.engine)
        if self.resumeRequests:
            plan = builder.withPreemption().build()
        else:
            plan = builder.withTailEviction().withAbort().build()
        plan.run()
