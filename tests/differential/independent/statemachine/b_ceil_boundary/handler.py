# Intended: buggy: the first dirty block index is rounded up from the confirmed boundary, so when the boundary falls inside a block (a failed decode step that filled it) the block holding the boundary stays in the prefix cache.
# Idioms: IntEnum phases dispatched with a match statement in a run loop, guard conditions choosing the next phase, an immutable plan (helper module) carried in a context dict, a loop counter that raises on runaway.
"""Abort-on-fault recovery as a phase machine dispatched with ``match``."""

from __future__ import annotations

from enum import IntEnum

from tail_plan import plan_request
from vllm.v1.request import RequestStatus


class Phase(IntEnum):
    SURVEY = 0
    PLAN = 1
    EVICT = 2
    ABORT = 3
    REPORT = 4
    DONE = 5


class FaultHandler:
    LOOP_LIMIT = 12

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ctx: dict = {"exc": exc, "requests": [], "plans": [], "aborted": []}
        phase = Phase.SURVEY
        for _ in range(self.LOOP_LIMIT):
            match phase:
                case Phase.SURVEY:
                    ctx["requests"] = list(sched.running)
                    phase = Phase.PLAN if ctx["requests"] else Phase.DONE
                case Phase.PLAN:
                    managers = sched.kv_cache_manager.coordinator.single_type_managers
                    for req in ctx["requests"]:
                        ctx["plans"].extend(plan_request(req, managers))
                    phase = Phase.EVICT if ctx["plans"] else Phase.ABORT
                case Phase.EVICT:
                    ids = {bid for p in ctx["plans"] for bid in p.block_ids}
                    sched.kv_cache_manager.evict_blocks(ids)
                    phase = Phase.ABORT
                case Phase.ABORT:
                    ctx["aborted"] = sched.finish_requests(
                        [r.request_id for r in ctx["requests"]], RequestStatus.FINISHED_ABORTED
                    )
                    phase = Phase.REPORT
                case Phase.REPORT:
                    self.engine._send_abort_outputs(ctx["aborted"])
                    phase = Phase.DONE
                case Phase.DONE:
                    return ctx
        raise RuntimeError(f"recovery loop limit hit in phase {phase.name}") from exc
