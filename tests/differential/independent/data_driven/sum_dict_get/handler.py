# Intended: correct.
# Keeps per-group block sizes in a dict keyed by group index and per-request in-flight counts in a dict read with .get(rid, 0); sums the dirty counts for the log and aborts everything after evicting.
from __future__ import annotations

import logging
from typing import Any

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def _dirty_by_group(self) -> dict[int, set[int]]:
        scheduler = self.engine.scheduler
        managers = dict(enumerate(scheduler.kv_cache_manager.coordinator.single_type_managers))
        sizes = {group: mgr.block_size for group, mgr in managers.items()}
        computed = {r.request_id: r.num_computed_tokens for r in scheduler.running}
        in_flight = {r.request_id: r.num_in_flight_tokens for r in scheduler.running if r.num_in_flight_tokens}
        dirty: dict[int, set[int]] = {}
        for group, mgr in managers.items():
            size = sizes.get(group, scheduler.block_size)
            for rid, done in computed.items():
                first = (done - in_flight.get(rid, 0)) // size
                tail = mgr.req_to_blocks.get(rid, [])[first:]
                dirty.setdefault(group, set()).update(b.block_id for b in tail if not b.is_null)
        return dirty

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        dirty = self._dirty_by_group()
        total = sum(len(ids) for ids in dirty.values())
        if total:
            scheduler.kv_cache_manager.evict_blocks(set().union(*dirty.values()))
        log.warning("fault %s: evicted %d tail blocks, aborting", type(exc).__name__, total)
        self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
