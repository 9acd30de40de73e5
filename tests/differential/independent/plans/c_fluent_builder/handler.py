# Intended: correct.
# Idioms: fluent builder (chained evict()/abort()/requeue()) producing a frozen plan of
# Idioms: dataclass steps with an Enum kind; executor applies all evictions, then batches aborts
# Idioms: into one finish_requests call or requeues one by one; abort/resume switch.
# switch: resume_on_fault
from __future__ import annotations

import time

from recovery_plan import PlanBuilder, RecoveryPlan, Step
from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_on_fault: bool = False

    def __init__(self, engine):
        self.engine = engine

    def plan(self, scheduler) -> RecoveryPlan:
        builder = PlanBuilder()
        coordinator = scheduler.kv_cache_manager.coordinator
        for req in list(scheduler.running):
            in_doubt_from = req.num_computed_tokens - req.num_in_flight_tokens
            for group, mgr in enumerate(coordinator.single_type_managers):
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                first = in_doubt_from // mgr.block_size
                builder.evict(req.request_id, group, (b.block_id for b in blocks[first:] if not b.is_null))
            if self.resume_on_fault:
                builder.requeue(req.request_id)
            else:
                builder.abort(req.request_id)
        return builder.build()

    def execute(self, scheduler, plan: RecoveryPlan) -> None:
        kv = scheduler.kv_cache_manager
        for step in plan.of(Step.EVICT):
            kv.evict_blocks(set(step.block_ids))

        aborts = [s.request_id for s in plan.of(Step.ABORT)]
        if aborts:
            finished = scheduler.finish_requests(aborts, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(finished)

        now = time.monotonic()
        for step in reversed(plan.of(Step.REQUEUE)):
            req = scheduler.requests[step.request_id]
            scheduler.running.remove(req)
            scheduler._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        self.execute(scheduler, self.plan(scheduler))
