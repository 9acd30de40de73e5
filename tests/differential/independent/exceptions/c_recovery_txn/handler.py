# Intended: correct.
# Idioms: a transaction-style context manager whose __exit__ rolls back to "abort what is still running" when the body raises (AbortInstead included), evicting the tails of those requests first; the body evicts and requeues request by request; abort/resume switch implemented by raising AbortInstead.
# switch: prefer_resume
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class AbortInstead(Exception):
    """Raised inside a recovery transaction to fall back to aborting."""


def _tail_ids(kv, request):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    out = set()
    for mgr in kv.coordinator.single_type_managers:
        for blk in mgr.req_to_blocks.get(request.request_id, ())[confirmed // mgr.block_size :]:
            if not blk.is_null:
                out.add(blk.block_id)
    return out


class RecoveryTransaction:
    def __init__(self, engine):
        self.engine = engine
        self.scheduler = engine.scheduler

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return False
        if not issubclass(exc_type, AbortInstead):
            logger.error("fault recovery failed (%s); aborting what is left", exc)
        sched = self.scheduler
        kv = sched.kv_cache_manager
        leftover = list(sched.running)
        ids = set()
        for req in leftover:
            ids |= _tail_ids(kv, req)
        kv.evict_blocks(ids)
        aborted = sched.finish_requests([r.request_id for r in leftover], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        return True  # handled: the engine is left with nothing running


class FaultHandler:
    prefer_resume = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        try:
            with RecoveryTransaction(self.engine) as txn:
                self._resume_all(txn.scheduler)
        except Exception:
            logger.exception("rollback of fault recovery failed")

    def _resume_all(self, sched):
        if not self.prefer_resume:
            raise AbortInstead("resume disabled by configuration")
        kv = sched.kv_cache_manager
        stamp = time.monotonic()
        while sched.running:
            req = sched.running[-1]
            kv.evict_blocks(_tail_ids(kv, req))
            sched.running.pop()
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
