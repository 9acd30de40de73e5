# Intended: buggy: PhaseDone is raised inside the per-group loop right after the first KV-cache group is evicted, which exits the loop over groups too, so in a model with two groups (full plus sliding window) the second group's unconfirmed blocks stay cached.
# Idioms: PhaseDone used to jump from the eviction phase to the release phase; try/except/else per request; errors logged and swallowed; abort/resume switch.
# switch: RESUME
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class PhaseDone(Exception):
    pass


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        for request in requests:
            try:
                self._evict_phase(sched, request)
            except PhaseDone:
                pass
            except Exception:
                logger.exception("eviction of %s failed", request.request_id)
        try:
            self._release_phase(sched, requests)
        except Exception:
            logger.exception("releasing requests after %r failed", exc)

    @staticmethod
    def _evict_phase(sched, request):
        kv = sched.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(request.request_id, ())
            tail = {b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null}
            if tail:
                kv.evict_blocks(tail)
                # Tail dropped: on to releasing the request.
                raise PhaseDone
        raise PhaseDone

    def _release_phase(self, sched, requests):
        if not self.RESUME:
            aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        now = time.monotonic()
        for request in reversed(requests):
            sched.running.remove(request)
            sched._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
