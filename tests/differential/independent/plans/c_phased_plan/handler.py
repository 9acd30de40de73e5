# Intended: correct.
# Idioms: steps as NamedTuples tagged with an IntEnum phase, emitted per request in any order
# Idioms: and sorted into phases (invalidate, release, fix-up) before a dispatch-by-verb
# Idioms: executor runs them; abort/resume switch.
# switch: RESUME
from __future__ import annotations

import time

from recovery_phases import Phase, Step, ordered
from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def _steps_for(self, scheduler, req) -> list[Step]:
        steps: list[Step] = []
        if self.RESUME:
            steps.append(Step(Phase.RELEASE, "preempt", req))
            steps.append(Step(Phase.FIXUP, "forget_lost_step", req))
        else:
            steps.append(Step(Phase.RELEASE, "abort", req.request_id))
        valid_upto = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            idx = valid_upto // mgr.block_size
            suspect = {b.block_id for b in blocks[idx:] if not b.is_null and b.block_hash is not None}
            if suspect:
                steps.append(Step(Phase.INVALIDATE, "evict", mgr.kv_cache_group_id, suspect))
        return steps

    def plan(self, scheduler) -> list[Step]:
        steps: list[Step] = []
        # Reverse: preempt prepends to the waiting queue, so the last running
        # request goes first and the queue ends up in the original order.
        for req in reversed(list(scheduler.running)):
            steps.extend(self._steps_for(scheduler, req))
        return ordered(steps)

    def apply(self, scheduler, steps: list[Step]) -> None:
        now = time.monotonic()
        aborts: list[str] = []
        for step in steps:
            if step.verb == "evict":
                scheduler.kv_cache_manager.evict_blocks(step.payload)
            elif step.verb == "abort":
                aborts.append(step.target)
            elif step.verb == "preempt":
                scheduler.running.remove(step.target)
                scheduler._preempt_request(step.target, now)
            elif step.verb == "forget_lost_step":
                step.target.num_in_flight_tokens = 0
                step.target.num_stale_output_tokens = 0
            else:
                raise AssertionError(step.verb)
        if aborts:
            self.engine._send_abort_outputs(
                scheduler.finish_requests(aborts, RequestStatus.FINISHED_ABORTED)
            )

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        self.apply(scheduler, self.plan(scheduler))
