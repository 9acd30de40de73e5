# Intended: buggy: it aborts the requests first and only then scans their block lists on the pool, but the abort already freed them and dropped their req_to_blocks entries, so the scan finds nothing and the dirty tail stays cached.
# Idioms: ThreadPoolExecutor with submit and as_completed, results collected into a set, a threading.Lock around the abort, abort only.
"""Abort-on-fault handler: release the requests at once, clean the cache in the background pool."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, as_completed

from vllm.v1.request import RequestStatus

_lock = threading.Lock()


def _tail(manager, request_id, confirmed):
    blocks = manager.req_to_blocks.get(request_id, [])
    return {b.block_id for b in blocks[confirmed // manager.block_size :] if not b.is_null}


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        # Remember the boundaries while the requests are still live.
        boundaries = {
            r.request_id: max(r.num_computed_tokens - r.num_in_flight_tokens, 0) for r in sched.running
        }
        # Release clients first: they should not wait on cache housekeeping.
        with _lock:
            aborted = sched.finish_requests(list(boundaries), RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

        managers = sched.kv_cache_manager.coordinator.single_type_managers
        dirty: set[int] = set()
        with ThreadPoolExecutor(max_workers=4) as pool:
            futs = [
                pool.submit(_tail, m, rid, confirmed)
                for rid, confirmed in boundaries.items()
                for m in managers
            ]
            for fut in as_completed(futs, timeout=10):
                dirty |= fut.result()
        if dirty:
            with _lock:
                sched.kv_cache_manager.evict_blocks(dirty)
