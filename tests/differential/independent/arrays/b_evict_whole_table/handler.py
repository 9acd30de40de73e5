# Intended: buggy: every block the request holds is evicted (the mask is just "valid id", not "at or after the confirmed boundary"), so the clean prefix written by steps that succeeded loses its prefix-cache entries and the resumed request recomputes it.
# Idioms: torch.cat of every group's block-id tensor, a validity mask ids > 0 to skip the null block, torch.unique, .tolist() before evict_blocks, abort/resume switch with counters cleared after the preempt.
# switch: RESUME
"""Fault handler: drop the faulted batch's KV from the prefix cache, then abort
or requeue it."""

from __future__ import annotations

import time

import torch

from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    @staticmethod
    def _batch_block_ids(kvm, reqs) -> torch.Tensor:
        chunks = [
            torch.as_tensor(ids, dtype=torch.long)
            for r in reqs
            for ids in kvm.get_block_ids(r.request_id)
        ]
        if not chunks:
            return torch.empty(0, dtype=torch.long)
        flat = torch.cat(chunks)
        return torch.unique(flat[flat > 0])  # block 0 is the null block

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        kvm = sched.kv_cache_manager
        ids = self._batch_block_ids(kvm, reqs)
        if ids.numel():
            kvm.evict_blocks(set(ids.tolist()))

        if not self.RESUME:
            aborted = sched.finish_requests(
                [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
            return
        ts = time.monotonic()
        while sched.running:
            r = sched.running.pop()
            sched._preempt_request(r, ts)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
