# Intended: correct.
# Abort vs resume from the exception type (`isinstance(exc, RuntimeError)`: a failed DP/EP collective is resumable), evicting only tail blocks that still carry a hash, per group, before either path.
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _cached_tail_block_ids(self, request: Request) -> set[int]:
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        boundary = request.num_computed_tokens - request.num_in_flight_tokens
        ids: set[int] = set()
        for manager in coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            for index, block in enumerate(blocks):
                if index < boundary // manager.block_size:
                    continue  # written by a step that completed
                if block.is_null or block.block_hash is None:
                    continue  # never entered the prefix cache
                ids.add(block.block_id)
        return ids

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        dirty: set[int] = set()
        for request in running:
            dirty |= self._cached_tail_block_ids(request)
        scheduler.kv_cache_manager.evict_blocks(dirty)

        # NCCL / Gloo collectives surface as RuntimeError; anything else
        # (assertions in the model runner, OOM) is not safe to resume.
        if isinstance(exc, RuntimeError):
            timestamp = time.monotonic()
            while scheduler.running:
                request = scheduler.running.pop()
                scheduler._preempt_request(request, timestamp)
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
            return

        aborted = scheduler.finish_requests(
            [r.request_id for r in running], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
