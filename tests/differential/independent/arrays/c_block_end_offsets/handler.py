# Intended: correct.
# Idioms: closures built per request over a confirmed-token count, block end offsets (np.arange(n) + 1) * block_size compared with the boundary, np.flatnonzero to find the first dirty block, slicing the numpy table from there, null-block filtering with a boolean mask, abort only.
"""On a failed step, forget the KV the step was writing and abort the batch.

A block is dirty when it ends past the confirmed token count: any block
that reaches into [confirmed, num_computed_tokens) was being written."""

from __future__ import annotations

import numpy as np

from vllm.v1.request import RequestStatus


def _tail_picker(confirmed: int):
    def pick(blocks, block_size: int) -> np.ndarray:
        if not blocks:
            return np.empty(0, dtype=np.int64)
        ids = np.array([b.block_id for b in blocks], dtype=np.int64)
        real = ~np.array([b.is_null for b in blocks], dtype=bool)
        ends = (np.arange(ids.size) + 1) * block_size
        hit = np.flatnonzero(ends > confirmed)
        if hit.size == 0:
            return np.empty(0, dtype=np.int64)
        start = hit[0]
        return ids[start:][real[start:]]

    return pick


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        pickers = {
            r.request_id: _tail_picker(r.num_computed_tokens - r.num_in_flight_tokens)
            for r in sched.running
        }
        chunks = [
            pick(mgr.req_to_blocks.get(rid, []), mgr.block_size)
            for rid, pick in pickers.items()
            for mgr in managers
        ]
        if chunks:
            dirty = np.concatenate(chunks)
            if dirty.size:
                sched.kv_cache_manager.evict_blocks({int(b) for b in dirty})
        if pickers:
            aborted = sched.finish_requests(list(pickers), RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
