# Intended: correct.
# Idioms: one flat id vector per KV-cache group built with np.concatenate, owner index via np.repeat over per-request lengths, local block position via np.arange minus np.cumsum offsets, per-cell boundary by gathering first_dirty[owner], abort only.
"""Abort handler, fully vectorised: no per-request Python loop over blocks."""

from __future__ import annotations

import numpy as np

from vllm.v1.request import RequestStatus


def _flatten(manager, rids):
    rows = [[b.block_id for b in manager.req_to_blocks.get(rid, ())] for rid in rids]
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    flat = np.fromiter(
        (bid for row in rows for bid in row), dtype=np.int64, count=int(lengths.sum())
    )
    owner = np.repeat(np.arange(len(rows)), lengths)
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    local = np.arange(flat.size) - np.repeat(offsets, lengths)
    return flat, owner, local


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = tuple(sched.running)
        if not running:
            return
        rids = [r.request_id for r in running]
        confirmed = np.array(
            [r.num_computed_tokens for r in running], dtype=np.int64
        ) - np.array([r.num_in_flight_tokens for r in running], dtype=np.int64)

        kvm = sched.kv_cache_manager
        dirty = np.empty(0, dtype=np.int64)
        for mgr in kvm.coordinator.single_type_managers:
            flat, owner, local = _flatten(mgr, rids)
            first_dirty = confirmed // mgr.block_size
            dirty = np.union1d(dirty, flat[local >= first_dirty[owner]])
        if dirty.size:
            kvm.evict_blocks(set(dirty.tolist()))

        self.engine._send_abort_outputs(
            sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
        )
