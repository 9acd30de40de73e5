# Intended: buggy: a request mask keeps only requests already past their prompt (num_computed_tokens > num_prompt_tokens), so requests whose prefill step failed are skipped and the prompt blocks that step cached at schedule time keep their hashes although their KV was never computed.
# Idioms: boolean request mask over parallel numpy arrays, np.flatnonzero to select rows, per-group floor division of the boundary vector, mask np.arange(n) >= first, set union, abort only.
"""Abort handler.  Prefill requests are recomputed from scratch anyway, so only
decoding requests have a tail worth evicting."""

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
        computed = np.array([r.num_computed_tokens for r in reqs], dtype=np.int64)
        in_flight = np.array([r.num_in_flight_tokens for r in reqs], dtype=np.int64)
        prompt = np.array([r.num_prompt_tokens for r in reqs], dtype=np.int64)

        decoding = computed > prompt
        rows = np.flatnonzero(decoding)
        confirmed = (computed - in_flight)[rows]

        kvm = sched.kv_cache_manager
        victims: set[int] = set()
        for mgr in kvm.coordinator.single_type_managers:
            first = confirmed // mgr.block_size
            for row, f in zip(rows.tolist(), first.tolist()):
                blocks = mgr.req_to_blocks.get(reqs[row].request_id, ())
                ids = np.array([b.block_id for b in blocks], dtype=np.int64)
                victims.update(ids[np.arange(ids.size) >= f].tolist())
        if victims:
            kvm.evict_blocks(victims)

        aborted = sched.finish_requests(
            [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
