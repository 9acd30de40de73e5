# Intended: correct.
# Builds DirtySpan NamedTuple records with itertools.product over running requests and KV-cache groups, evicts their block ids, then aborts everything.
from __future__ import annotations

from typing import Any

from spans import dirty_spans, span_block_ids
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = tuple(kv.coordinator.single_type_managers)
        if spans := dirty_spans(scheduler.running, managers):
            kv.evict_blocks(span_block_ids(spans, managers))
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
