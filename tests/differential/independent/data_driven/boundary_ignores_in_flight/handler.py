# Intended: buggy: the first dirty block is computed from num_computed_tokens alone, ignoring num_in_flight_tokens, so the blocks filled by the failed step (which lie before num_computed_tokens) are taken as confirmed and stay cached.
# DirtySpan NamedTuples built by a comprehension, merged into one id set with sorted() for a stable log line, then everything is aborted.
from __future__ import annotations

import logging
from typing import Any, NamedTuple

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class DirtySpan(NamedTuple):
    request_id: str
    first_block: int
    group: int


def confirmed_tokens(req: Any) -> int:
    """Tokens whose KV the scheduler has accounted for."""
    return req.num_computed_tokens


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        spans = [
            DirtySpan(req.request_id, confirmed_tokens(req) // mgr.block_size, group)
            for req in scheduler.running
            for group, mgr in enumerate(managers)
        ]
        dirty = sorted(
            {
                b.block_id
                for s in spans
                for b in managers[s.group].req_to_blocks.get(s.request_id, [])[s.first_block :]
                if not b.is_null
            }
        )
        if dirty:
            log.info("evicting %s", dirty)
            kv.evict_blocks(set(dirty))
        self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
