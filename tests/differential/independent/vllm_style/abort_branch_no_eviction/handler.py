# Intended: buggy: when the exception is not a transient transport error the handler aborts like the upstream sentinel without evicting the unconfirmed tail, so the freed blocks keep their hashes and a new request with the same prefix hits never-computed KV.
# Exception-type decision (`isinstance(exc, (TimeoutError, ConnectionError))` resumes, anything else aborts) with a scheduler-style eviction helper on the resume branch.
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            for block in (manager.req_to_blocks.get(request.request_id) or [])[
                num_confirmed // manager.block_size:
            ]:
                block_ids.add(block.block_id)
        kv_cache_manager.evict_blocks(block_ids)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        if isinstance(exc, (TimeoutError, ConnectionError)):
            timestamp = time.monotonic()
            while scheduler.running:
                request = scheduler.running.pop()
                self._evict_dirty_tail(request)
                scheduler._preempt_request(request, timestamp)
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
            return

        # Unrecoverable: the requests are gone for good, nothing will resume
        # from their blocks.
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
