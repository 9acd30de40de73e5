# Intended: buggy: the resume path preempts the running requests without evicting their unconfirmed tail (only the abort path evicts), so the resumed request and any same-prefix request hit the never-written blocks.
# Scheduler-style handler with a `_evict_dirty_tail(request)` helper and a resume/abort switch; resume mirrors `reset_prefix_cache`'s `while running: running.pop()` preemption.
# switch: resume_requests
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume_requests = False

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        dirty = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            dirty.update(
                b.block_id for b in blocks[num_confirmed // manager.block_size:] if not b.is_null
            )
        kv_cache_manager.evict_blocks(dirty)

    def _abort_all(self) -> None:
        scheduler = self.engine.scheduler
        for request in list(scheduler.running):
            self._evict_dirty_tail(request)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _resume_all(self) -> None:
        # A resumed request recomputes everything past its confirmed prefix,
        # overwriting the tail blocks in place.
        scheduler = self.engine.scheduler
        timestamp = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    def on_fault(self, exc: BaseException) -> None:
        if self.resume_requests:
            self._resume_all()
        else:
            self._abort_all()
