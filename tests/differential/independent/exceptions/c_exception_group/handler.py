# Intended: correct.
# Idioms: per-request failures collected into a list and re-raised as one ExceptionGroup at the end of the sweep; on_fault handles the group with except* and logs each member; RequestRecoveryError carries the request id; abort/resume switch.
# switch: resume_requests
"""Sweep every running request, recover it, and report all failures at once."""

import logging
import time

from vllm.v1.request import RequestStatus

log = logging.getLogger("ft.recovery")


class RequestRecoveryError(Exception):
    def __init__(self, request_id, cause):
        super().__init__(f"{request_id}: {cause!r}")
        self.request_id = request_id


class FaultHandler:
    resume_requests = False

    def __init__(self, engine, *, resume_requests=None):
        self.engine = engine
        if resume_requests is not None:
            self.resume_requests = resume_requests

    def on_fault(self, exc):
        try:
            self._sweep()
        except* RequestRecoveryError as group:
            for err in group.exceptions:
                log.error("fault recovery left request %s in an unknown state: %s", err.request_id, err)
        except* Exception as group:
            log.exception("fault recovery failed: %s", group)

    def _sweep(self):
        sched = self.engine.scheduler
        errors = []
        aborted = []
        stamp = time.monotonic()
        for req in list(sched.running)[::-1]:
            try:
                self._drop_dirty_tail(sched.kv_cache_manager, req)
                if self.resume_requests:
                    sched.running.remove(req)
                    sched._preempt_request(req, stamp)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
                else:
                    aborted.extend(sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED))
            except Exception as err:
                errors.append(RequestRecoveryError(req.request_id, err))
        if aborted:
            try:
                self.engine._send_abort_outputs(aborted)
            except Exception as err:
                errors.append(err)
        if errors:
            raise ExceptionGroup("fault recovery errors", errors)

    @staticmethod
    def _drop_dirty_tail(kv, req):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        dirty = set()
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            for idx in range(confirmed // mgr.block_size, len(blocks)):
                if not blocks[idx].is_null:
                    dirty.add(blocks[idx].block_id)
        kv.evict_blocks(dirty)
