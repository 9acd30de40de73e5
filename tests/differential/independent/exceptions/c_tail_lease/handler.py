# Intended: correct.
# Idioms: a context manager per request whose __enter__ evicts the unconfirmed tail before the with-body frees the request; __exit__ logs and swallows LookupError from the body; abort/resume switch.
# switch: RESUME
"""Fault handler built around ``TailLease``: a request's dirty tail is dropped
from the prefix cache when the lease is taken, and the body (preempt or abort)
only runs inside the lease."""

import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class TailLease:
    """Drop the prefix-cache entries of one request's unconfirmed tail on entry.

    The block ids are read from the managers' block tables on ``__enter__``,
    while the request still owns its blocks; the body may then free them.
    """

    def __init__(self, kv_cache_manager, request):
        self.kv = kv_cache_manager
        self.request = request
        self.evicted: set[int] = set()

    def __enter__(self):
        req = self.request
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in self.kv.coordinator.single_type_managers:
            table = mgr.req_to_blocks.get(req.request_id)
            if not table:
                continue
            start = max(confirmed, 0) // mgr.block_size
            self.evicted.update(blk.block_id for blk in table[start:] if not blk.is_null)
        if self.evicted:
            self.kv.evict_blocks(self.evicted)
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and issubclass(exc_type, LookupError):
            # The request vanished from the scheduler's tables while we held
            # the lease (finished concurrently): its blocks are gone already.
            logger.warning("request %s disappeared during recovery: %s", self.request.request_id, exc)
            return True
        return False


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        now = time.monotonic()
        aborted_ids = []
        for request in list(reversed(scheduler.running)):
            try:
                with TailLease(scheduler.kv_cache_manager, request):
                    if self.RESUME:
                        self._requeue(scheduler, request, now)
                    else:
                        aborted_ids.append(request.request_id)
            except Exception:
                logger.exception("fault recovery of request %s failed", request.request_id)
        if aborted_ids:
            aborted = scheduler.finish_requests(aborted_ids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _requeue(scheduler, request, now):
        scheduler.running.remove(request)
        scheduler._preempt_request(request, now)
        # The failed step's output frame never comes back: nothing is stale.
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
