# Intended: buggy: the unconfirmed tail is evicted only on the resume path; the abort path frees the requests with their dirty tail blocks still hashed in the prefix cache, so a later request with the same prefix reuses KV that was never computed.
# An enum.Enum recovery mode dispatched with match, with a per-request dict of DirtySpan NamedTuples keyed by request id.
# switch: resume_after_fault
from __future__ import annotations

import enum
import time
from typing import Any, NamedTuple

from vllm.v1.request import RequestStatus


class Recovery(enum.Enum):
    ABORT = enum.auto()
    RESUME = enum.auto()


class DirtySpan(NamedTuple):
    request_id: str
    first_block: int
    group: int


def _spans(scheduler: Any) -> dict[str, list[DirtySpan]]:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    return {
        req.request_id: [
            DirtySpan(req.request_id, (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size, g)
            for g, mgr in enumerate(managers)
        ]
        for req in scheduler.running
    }


class FaultHandler:
    resume_after_fault: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def _evict(self, spans: dict[str, list[DirtySpan]]) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        ids = {
            block.block_id
            for per_request in spans.values()
            for span in per_request
            for block in managers[span.group].req_to_blocks.get(span.request_id, [])[span.first_block :]
            if not block.is_null
        }
        if ids:
            kv.evict_blocks(ids)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        mode = Recovery.RESUME if self.resume_after_fault else Recovery.ABORT
        match mode:
            case Recovery.ABORT:
                aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                self.engine._send_abort_outputs(aborted)
            case Recovery.RESUME:
                self._evict(_spans(scheduler))
                now = time.monotonic()
                while scheduler.running:
                    req = scheduler.running.pop()
                    scheduler._preempt_request(req, now)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
