# Intended: correct.
# Recovery is a plan object (AbortPlan or ResumePlan dataclass) executed through functools.singledispatchmethod; the tail eviction, computed with itertools.chain.from_iterable over the KV-cache groups, runs once before dispatch.
# switch: resume
from __future__ import annotations

import functools
import logging
import time

from dirty_tail import unconfirmed_block_ids
from recovery_plans import AbortPlan, ResumePlan
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine
        self.resume = False

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        for request in scheduler.running:
            tail = unconfirmed_block_ids(kv, request)
            if not tail:
                continue
            logger.debug(f"{request.request_id}: evicting unconfirmed blocks {sorted(tail)}")
            kv.evict_blocks(tail)
        plan = ResumePlan(timestamp=time.monotonic()) if self.resume else AbortPlan(reason=repr(exc))
        self._execute(plan)

    @functools.singledispatchmethod
    def _execute(self, plan: object) -> None:
        raise TypeError(f"no recovery for {type(plan).__name__}")

    @_execute.register(AbortPlan)
    def _abort(self, plan: AbortPlan) -> None:
        aborted = self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        logger.warning(f"aborted {len(aborted)} requests: {plan.reason}")

    @_execute.register(ResumePlan)
    def _resume(self, plan: ResumePlan) -> None:
        scheduler = self.engine.scheduler
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, plan.timestamp)
            request.num_in_flight_tokens = request.num_stale_output_tokens = 0
