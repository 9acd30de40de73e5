from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


class FaultStrategy(Protocol):
    def apply(self, engine: Any) -> None: ...


@dataclass(frozen=True)
class DirtySpan:
    request_id: str
    first_token: int

    @classmethod
    def of(cls, request: Any) -> DirtySpan:
        return cls(request.request_id, request.num_computed_tokens - request.num_in_flight_tokens)

    def block_ids(self, kv: Any) -> set[int]:
        ids: set[int] = set()
        for group in kv.coordinator.single_type_managers:
            blocks = group.req_to_blocks.get(self.request_id, [])
            ids.update(b.block_id for b in blocks[self.first_token // group.block_size :] if not b.is_null)
        return ids


class AbortAll:
    """Aborted requests never come back, and finish_requests releases their blocks."""

    def apply(self, engine: Any) -> None:
        aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)


class RequeueAll:
    def apply(self, engine: Any) -> None:
        scheduler = engine.scheduler
        kv = scheduler.kv_cache_manager
        now = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            kv.evict_blocks(DirtySpan.of(request).block_ids(kv))
            scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
