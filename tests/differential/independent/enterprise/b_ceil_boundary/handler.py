# Intended: buggy: the first block to evict is computed by rounding the confirmed boundary up to a whole block, so the block that holds the boundary (partly written by the failed step) keeps its prefix-cache hash whenever the boundary is not block-aligned.
# Idioms: strategy interface (abc.ABC) for boundary arithmetic injected through the constructor, a static utility class, an Enum for the recovery mode mapped from a class-attribute switch, @property getters.
# switch: RESUME_MODE
"""Fault handler with a pluggable block-boundary policy."""

from __future__ import annotations

import time
from enum import Enum

from vllm.v1.request import RequestStatus

from boundary_policy import BoundaryPolicy, WholeBlockBoundary


class Mode(Enum):
    ABORT = 0
    RESUME = 1


class FaultHandler:
    RESUME_MODE = False

    def __init__(self, engine, boundary: BoundaryPolicy | None = None) -> None:
        self.engine = engine
        self._boundary = boundary or WholeBlockBoundary()

    @property
    def mode(self) -> Mode:
        return Mode.RESUME if self.RESUME_MODE else Mode.ABORT

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        requests = list(scheduler.running)
        stale_ids: set[int] = set()
        for request in requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in kv.coordinator.single_type_managers:
                first = self._boundary.first_unconfirmed_block(confirmed, manager.block_size)
                for block in manager.req_to_blocks.get(request.request_id, [])[first:]:
                    if not block.is_null:
                        stale_ids.add(block.block_id)
        kv.evict_blocks(stale_ids)

        if self.mode is Mode.ABORT:
            aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
        else:
            now = time.monotonic()
            for request in reversed(requests):
                scheduler.running.remove(request)
                scheduler._preempt_request(request, now)
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
