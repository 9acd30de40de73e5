# Intended: buggy: requests whose failed step was still their prefill are skipped by SkipRequest on the belief that nothing of theirs was confirmed or cached yet, but vLLM caches full prompt blocks when it schedules them, so those requests' prompt blocks stay in the prefix cache.
# Idioms: SkipRequest raised from a per-request check and caught in the loop; try/except/else per request; requests collected then aborted or requeued; abort/resume switch.
# switch: resume
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class SkipRequest(Exception):
    pass


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        victims = list(sched.running)
        for req in victims:
            try:
                ids = self._unconfirmed_ids(kv, req)
            except SkipRequest:
                logger.debug("%s faulted during prefill; no cached KV to drop", req.request_id)
            else:
                kv.evict_blocks(ids)
        if self.resume:
            now = time.monotonic()
            for req in reversed(victims):
                sched.running.remove(req)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _unconfirmed_ids(kv, req):
        if req.num_output_tokens == 0:
            # Prefill never produced a token: nothing was committed.
            raise SkipRequest(req.request_id)
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        ids = set()
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            ids.update(b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null)
        return ids
