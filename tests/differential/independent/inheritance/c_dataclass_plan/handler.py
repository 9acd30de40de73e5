# Intended: correct.
# Idioms: a RecoveryPlan dataclass captured by a classmethod before anything is released (helper module), an abstract PlanningFaultHandler whose on_fault is a template over execute(plan), execution strategies as mixin classes, leaf choosing between them with a switch.
# switch: preempt_instead_of_abort
"""Capture a recovery plan, invalidate what it names, then execute it."""

from __future__ import annotations

import abc
import time

from recovery_plan import RecoveryPlan
from vllm.v1.request import RequestStatus


class PlanningFaultHandler(abc.ABC):
    plan_cls = RecoveryPlan

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        plan = self.plan_cls.capture(self.scheduler)
        self.invalidate(plan)
        self.execute(plan)

    def invalidate(self, plan: RecoveryPlan) -> None:
        self.scheduler.kv_cache_manager.evict_blocks(plan.dirty_block_ids)

    @abc.abstractmethod
    def execute(self, plan: RecoveryPlan) -> None: ...


class AbortExecution:
    def execute_abort(self, plan: RecoveryPlan) -> None:
        aborted = self.scheduler.finish_requests(plan.request_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)


class PreemptExecution:
    def execute_preempt(self, plan: RecoveryPlan) -> None:
        stamp = time.monotonic()
        for entry in reversed(plan.entries):
            request = entry.request
            self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, stamp)
        for entry in plan.entries:
            entry.request.num_in_flight_tokens = 0
            entry.request.num_stale_output_tokens = 0


class FaultHandler(AbortExecution, PreemptExecution, PlanningFaultHandler):
    preempt_instead_of_abort = False

    def execute(self, plan: RecoveryPlan) -> None:
        if self.preempt_instead_of_abort:
            self.execute_preempt(plan)
        else:
            self.execute_abort(plan)
