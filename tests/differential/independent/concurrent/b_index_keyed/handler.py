# Intended: buggy: it merges the per-request scan results into a dict keyed by (KV-cache group, block index), so requests with blocks at the same positions overwrite each other and only the last request's tail is evicted.
# Idioms: ThreadPoolExecutor.map (ordered results) over the running requests, a dict merged with update as results arrive, a threading.Lock around the evict-and-abort section, abort only.
"""Abort-on-fault handler keeping a position map of the dirty blocks."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self._lock = threading.Lock()

    def _positions(self, req):
        """{(group id, block index): block id} for the request's unconfirmed tail."""
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        found = {}
        for mgr in self.engine.scheduler.kv_cache_manager.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            for idx in range(confirmed // mgr.block_size, len(blocks)):
                if not blocks[idx].is_null:
                    found[(mgr.kv_cache_group_id, idx)] = blocks[idx].block_id
        return found

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        dirty_at: dict[tuple[int, int], int] = {}
        with ThreadPoolExecutor(max_workers=len(victims) or 1) as pool:
            for positions in pool.map(self._positions, victims):
                dirty_at.update(positions)

        with self._lock:
            if dirty_at:
                sched.kv_cache_manager.evict_blocks(set(dirty_at.values()))
            aborted = sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
