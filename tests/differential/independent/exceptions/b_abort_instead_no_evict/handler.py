# Intended: buggy: when resume is switched off, AbortInstead is raised before the step that evicts the unconfirmed tail, and its except clause aborts the requests directly, so on the abort path nothing is evicted and the failed step's blocks stay in the prefix cache.
# Idioms: AbortInstead exception used to jump from the resume routine to the abort routine; try/except/else around the whole recovery; contextlib.suppress for the notification hook; abort/resume switch.
# switch: RESUME
import logging
import time
from contextlib import suppress

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class AbortInstead(Exception):
    def __init__(self, why):
        super().__init__(why)
        self.why = why


class FaultHandler:
    RESUME = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        try:
            resumed = self._resume(sched)
        except AbortInstead as signal:
            logger.warning("aborting all requests after %r: %s", exc, signal.why)
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            with suppress(AttributeError):
                self.engine._send_abort_outputs(aborted)
        except Exception:
            logger.exception("fault recovery failed")
        else:
            logger.info("requeued %d requests after %r", resumed, exc)

    def _resume(self, sched):
        if not self.RESUME:
            raise AbortInstead("resume disabled")
        kv = sched.kv_cache_manager
        now = time.monotonic()
        count = 0
        while sched.running:
            req = sched.running[-1]
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids = set()
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id, ())
                ids.update(b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null)
            kv.evict_blocks(ids)
            sched.running.pop()
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            count += 1
        return count
