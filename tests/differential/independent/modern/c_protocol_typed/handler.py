# Intended: correct.
# Idioms: typing.Protocol structural types and a TypedDict eviction plan in a separate module, pure planning helpers, match on the plan mapping, abort/resume switch.
# switch: resume
"""Plan the tail eviction per request, apply it, then abort or preempt."""

from __future__ import annotations

import time
from typing import Any

from vllm.v1.request import RequestStatus

from ft_types import EvictionPlan
from planning import plans_for, union_ids


class FaultHandler:
    resume: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        requests = list(scheduler.running)
        plans: list[EvictionPlan] = plans_for(requests, kv.coordinator.single_type_managers)
        if ids := union_ids(plans):
            kv.evict_blocks(ids)
        if not self.resume:
            done = scheduler.finish_requests([p["request_id"] for p in plans], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(done)
            return
        by_id = {r.request_id: r for r in requests}
        now = time.monotonic()
        for plan in reversed(plans):
            match plan:
                case {"request_id": rid} if (req := by_id.get(rid)) is not None:
                    scheduler.running.remove(req)
                    scheduler._preempt_request(req, now)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
                case _:
                    continue
