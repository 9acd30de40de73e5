# Intended: correct.
# Idioms: AbortInstead raised from the resume step when a request cannot be requeued, caught by the caller which aborts that one request; SkipRequest for requests that already left the running queue; contextlib.suppress around the client notification; abort/resume switch.
# switch: RESUME_ON_FAULT
"""Resume where possible, abort where not."""

import contextlib
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class SkipRequest(Exception):
    pass


class AbortInstead(Exception):
    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class FaultHandler:
    RESUME_ON_FAULT = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        to_abort = []
        now = time.monotonic()
        for request in list(sched.running)[::-1]:
            try:
                self._evict_unconfirmed(sched, request)
                if not self.RESUME_ON_FAULT:
                    raise AbortInstead("resume disabled")
                self._requeue(sched, request, now)
            except SkipRequest:
                continue
            except AbortInstead as why:
                logger.info("aborting %s: %s", request.request_id, why.reason)
                to_abort.append(request.request_id)
        if to_abort:
            aborted = sched.finish_requests(to_abort, RequestStatus.FINISHED_ABORTED)
            with contextlib.suppress(AttributeError):
                self.engine._send_abort_outputs(aborted)

    def _evict_unconfirmed(self, sched, request):
        if request.request_id not in sched.requests:
            raise SkipRequest(request.request_id)
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        stale = set()
        for manager in sched.kv_cache_manager.coordinator.single_type_managers:
            held = manager.req_to_blocks.get(request.request_id, ())
            stale.update(b.block_id for b in held[confirmed // manager.block_size :] if not b.is_null)
        sched.kv_cache_manager.evict_blocks(stale)

    @staticmethod
    def _requeue(sched, request, now):
        if request.status != RequestStatus.RUNNING:
            raise AbortInstead(f"status is {request.status.name}")
        try:
            sched.running.remove(request)
        except ValueError as err:
            raise AbortInstead("not in the running queue") from err
        sched._preempt_request(request, now)
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
