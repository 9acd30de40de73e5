# Intended: correct.
# Idioms: an ErrorBudget context manager that swallows and counts per-step errors until a bound, then raises BudgetExhausted to stop the sweep; try/except/else per KV-cache group; SkipRequest for requests with no blocks in a group; outer catch-all so nothing escapes; abort/resume switch.
# switch: RESUME
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class BudgetExhausted(Exception):
    pass


class SkipRequest(Exception):
    pass


class ErrorBudget:
    """Swallow (and log) up to ``limit`` errors raised inside ``with budget:``."""

    def __init__(self, limit):
        self.limit = limit
        self.spent = 0

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None or issubclass(exc_type, (BudgetExhausted, SkipRequest)):
            return False
        if not issubclass(exc_type, Exception):
            return False
        self.spent += 1
        logger.warning("fault recovery step failed (%d/%d): %s", self.spent, self.limit, exc)
        if self.spent >= self.limit:
            raise BudgetExhausted(self.spent) from exc
        return True


class FaultHandler:
    RESUME = False
    error_limit = 4

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        budget = ErrorBudget(self.error_limit)
        try:
            self._evict_tails(sched, budget)
        except BudgetExhausted:
            logger.error("too many errors while evicting; releasing requests anyway")
        try:
            if self.RESUME:
                self._requeue(sched, budget)
            else:
                aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                self.engine._send_abort_outputs(aborted)
        except Exception:
            logger.exception("could not release requests after fault %r", exc)

    @staticmethod
    def _group_tail(manager, request, confirmed):
        blocks = manager.req_to_blocks.get(request.request_id)
        if not blocks:
            raise SkipRequest
        return {b.block_id for b in blocks[confirmed // manager.block_size :] if not b.is_null}

    def _evict_tails(self, sched, budget):
        kv = sched.kv_cache_manager
        for request in list(sched.running):
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in kv.coordinator.single_type_managers:
                try:
                    ids = self._group_tail(manager, request, confirmed)
                except SkipRequest:
                    continue
                else:
                    with budget:
                        kv.evict_blocks(ids)

    def _requeue(self, sched, budget):
        now = time.monotonic()
        for request in reversed(list(sched.running)):
            with budget:
                sched.running.remove(request)
                sched._preempt_request(request, now)
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
