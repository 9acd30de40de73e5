# Intended: correct.
# Idioms: helper module turning ragged block tables into a padded 2-D numpy array, broadcasting a column index against a per-request first-dirty vector (cols >= first[:, None]), np.concatenate and np.unique across KV-cache groups, .tolist() before evict_blocks, abort/resume switch.
# switch: RESUME
"""Evict the unconfirmed tail of every running request (all KV-cache groups at
once, as padded tables), then abort or requeue the batch."""

from __future__ import annotations

import time

import numpy as np

from padded import dense_block_table, tail_columns
from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        batch = list(sched.running)
        if not batch:
            return

        rids = [r.request_id for r in batch]
        confirmed = np.array(
            [r.num_computed_tokens - r.num_in_flight_tokens for r in batch], dtype=np.int64
        )
        per_group = []
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            table = dense_block_table(
                [[b.block_id for b in mgr.req_to_blocks.get(rid, ())] for rid in rids]
            )
            mask = tail_columns(table, confirmed // mgr.block_size)
            per_group.append(table[mask])
        dirty = np.unique(np.concatenate(per_group)) if per_group else np.empty(0, np.int64)
        if dirty.size:
            sched.kv_cache_manager.evict_blocks(set(dirty.tolist()))

        if not self.RESUME:
            aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        ts = time.monotonic()
        for req in reversed(batch):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
