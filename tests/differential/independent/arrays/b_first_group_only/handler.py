# Intended: buggy: the block table is taken from the first KV-cache group only (get_block_ids(...)[0]), so on a model with a second group (sliding-window attention) that group's unconfirmed blocks keep their hashes in the prefix cache.
# Idioms: np.asarray over kv_cache_manager.get_block_ids, one block_size for the whole model, broadcasting np.arange against a first-dirty vector, np.concatenate of per-request tails, abort only.
"""Abort handler with tail eviction on the request's block table."""

from __future__ import annotations

import numpy as np

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        kvm = sched.kv_cache_manager
        bs = sched.block_size
        first_dirty = (
            np.array([r.num_computed_tokens for r in reqs])
            - np.array([r.num_in_flight_tokens for r in reqs])
        ) // bs

        tails = []
        for req, first in zip(reqs, first_dirty):
            table = np.asarray(kvm.get_block_ids(req.request_id)[0], dtype=np.int64)
            tails.append(table[np.arange(table.size) >= first])
        dirty = np.concatenate(tails)
        if dirty.size:
            kvm.evict_blocks(set(dirty.tolist()))

        aborted = sched.finish_requests(
            [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
