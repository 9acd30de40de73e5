# Intended: buggy: instead of evicting each request's unconfirmed tail it plans a reset of the whole prefix cache, run while the running requests still hold their blocks, so the reset refuses (it returns False, which is ignored) and the failed step's blocks stay cached.
# Idioms: an Enum of operations with per-operation payloads in an ordered plan, a method-per-op
# Idioms: executor looked up by name (getattr on "_op_<name>"), the plan logged before it runs; abort-only.
from __future__ import annotations

import enum
import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class Op(enum.Enum):
    INVALIDATE_PREFIX_CACHE = "invalidate_prefix_cache"
    ABORT = "abort"


class PlanExecutor:
    def __init__(self, engine):
        self.engine = engine
        self.scheduler = engine.scheduler

    def run(self, plan: list[tuple[Op, object]]) -> None:
        for op, payload in plan:
            logger.info("fault recovery: %s %s", op.value, payload or "")
            getattr(self, f"_op_{op.value}")(payload)

    def _op_invalidate_prefix_cache(self, _payload) -> None:
        # Cheaper and simpler than working out which blocks the failed step
        # touched: nothing cached before the fault can be trusted.
        self.scheduler.kv_cache_manager.reset_prefix_cache()

    def _op_abort(self, request_ids) -> None:
        aborted = self.scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def plan(self) -> list[tuple[Op, object]]:
        running = [r.request_id for r in self.engine.scheduler.running]
        if not running:
            return []
        return [(Op.INVALIDATE_PREFIX_CACHE, None), (Op.ABORT, running)]

    def on_fault(self, exc):
        PlanExecutor(self.engine).run(self.plan())
