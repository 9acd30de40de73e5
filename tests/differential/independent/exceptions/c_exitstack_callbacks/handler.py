# Intended: correct.
# Idioms: contextlib.ExitStack with the release step (abort or requeue) registered as a callback up front, so it runs on the way out even if eviction raises; eviction in the with-body; EvictionFailed raised per request and suppressed by a nested suppress; abort/resume switch.
# switch: requeue
"""Fault handler whose release step is guaranteed by an ExitStack callback."""

import contextlib
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class EvictionFailed(Exception):
    pass


class FaultHandler:
    requeue = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        try:
            with contextlib.ExitStack() as stack:
                stack.callback(self._requeue_all if self.requeue else self._abort_all, sched)
                for req in list(sched.running):
                    with contextlib.suppress(EvictionFailed):
                        self._evict_tail(sched, req)
        except Exception:
            logger.exception("fault recovery raised after %r", exc)

    def _evict_tail(self, sched, req):
        kv = sched.kv_cache_manager
        boundary = req.num_computed_tokens - req.num_in_flight_tokens
        ids = set()
        for mgr in kv.coordinator.single_type_managers:
            table = mgr.req_to_blocks.get(req.request_id, [])
            ids |= {blk.block_id for blk in table[boundary // mgr.block_size :] if not blk.is_null}
        try:
            kv.evict_blocks(ids)
        except AssertionError as err:
            logger.error("request %s: bad block id in tail %s", req.request_id, sorted(ids))
            raise EvictionFailed(req.request_id) from err

    def _abort_all(self, sched):
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _requeue_all(self, sched):
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
