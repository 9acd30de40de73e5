# Intended: buggy: on resume the stale-output counter is cleared before the preempt and num_in_flight_tokens is never reset, but _preempt_request copies num_in_flight_tokens into num_stale_output_tokens, so the requeued request waits forever for output of the failed step that never arrives.
# Idioms: counter resets wrapped in contextlib.suppress(AttributeError) for older vLLM; per-request try/except/else around the preempt; AbortInstead raised when a request cannot be requeued; abort/resume switch.
# switch: resume_on_fault
import logging
import time
from contextlib import suppress

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class AbortInstead(Exception):
    pass


class FaultHandler:
    resume_on_fault = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        stamp = time.monotonic()
        abort_ids = []
        for req in reversed(list(sched.running)):
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            dirty = set()
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                dirty |= {b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null}
            kv.evict_blocks(dirty)
            try:
                if not self.resume_on_fault:
                    raise AbortInstead
                with suppress(AttributeError):  # field is new in 0.27
                    req.num_stale_output_tokens = 0
                sched.running.remove(req)
                sched._preempt_request(req, stamp)
            except AbortInstead:
                abort_ids.append(req.request_id)
            except Exception:
                logger.exception("could not requeue %s; aborting it", req.request_id)
                abort_ids.append(req.request_id)
            else:
                logger.debug("requeued %s at token %d", req.request_id, confirmed)
        if abort_ids:
            aborted = sched.finish_requests(abort_ids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
