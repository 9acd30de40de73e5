# Intended: buggy: the requests are aborted first and the block tables are read from req_to_blocks afterwards, when finish_requests has already freed and popped them, so no block is evicted and the unconfirmed tail stays in the prefix cache.
# Idioms: boundary vector snapshotted with np.fromiter before the abort, per-group torch tensors of block ids, torch.nonzero on an arange >= first mask, .tolist() into evict_blocks, abort only.
"""Abort first (so the engine frees the batch quickly), then clean the cache."""

from __future__ import annotations

import numpy as np
import torch

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        rids = [r.request_id for r in reqs]
        confirmed = np.fromiter(
            (r.num_computed_tokens - r.num_in_flight_tokens for r in reqs),
            dtype=np.int64,
            count=len(reqs),
        )
        aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

        kvm = sched.kv_cache_manager
        dirty: set[int] = set()
        for mgr in kvm.coordinator.single_type_managers:
            for rid, c in zip(rids, confirmed // mgr.block_size):
                ids = torch.tensor(
                    [b.block_id for b in mgr.req_to_blocks.get(rid, [])], dtype=torch.long
                )
                pos = torch.nonzero(torch.arange(ids.numel()) >= int(c)).flatten()
                dirty.update(ids[pos].tolist())
        if dirty:
            kvm.evict_blocks(dirty)
