# Intended: buggy: the finally block evicts every hashed block the request holds, from block 0, instead of only the blocks from the confirmed boundary on, so the clean prefix written by steps that succeeded is thrown out of the prefix cache and must be recomputed.
# Idioms: per-request try/except/finally with the eviction as the "always runs" cleanup in finally before the abort; SkipRequest for requests already gone; errors logged and swallowed.
import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class SkipRequest(Exception):
    pass


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        doomed = []
        for req in list(sched.running):
            try:
                if req.request_id not in sched.requests:
                    raise SkipRequest
                doomed.append(req.request_id)
            except SkipRequest:
                continue
            finally:
                # Never let a faulted request's KV be reused.
                self._forget_cached_kv(sched, req)
        try:
            aborted = sched.finish_requests(doomed, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
        except Exception:
            logger.exception("abort after fault %r failed", exc)

    @staticmethod
    def _forget_cached_kv(sched, req):
        kv = sched.kv_cache_manager
        ids = set()
        for mgr in kv.coordinator.single_type_managers:
            for blk in mgr.req_to_blocks.get(req.request_id, ()):
                if blk.block_hash is not None and not blk.is_null:
                    ids.add(blk.block_id)
        try:
            kv.evict_blocks(ids)
        except AssertionError:
            logger.exception("bad block ids for %s", req.request_id)
