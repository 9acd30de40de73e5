# Intended: buggy: on the resume path the requests are preempted with drop_stale_output=True, so each keeps a non-zero stale count marked to be dropped; the failed step's frame never arrives, so the first good output frame after the resume is thrown away instead.
# Idioms: torch tensors of block ids per group, torch.masked_select with an arange >= first mask, torch.unique over torch.cat, preempt with the same flag reset_prefix_cache uses, in-flight counter cleared after the preempt, abort/resume switch.
# switch: resume_on_fault
"""Fault handler modelled on reset_prefix_cache's preemption: requeue the batch
and drop any output still in flight; evict the unconfirmed tail first."""

from __future__ import annotations

import time

import torch

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def _tail(self, kvm, reqs) -> list[int]:
        confirmed = torch.tensor(
            [r.num_computed_tokens - r.num_in_flight_tokens for r in reqs]
        )
        picked = [torch.empty(0, dtype=torch.long)]
        for mgr in kvm.coordinator.single_type_managers:
            first = confirmed // mgr.block_size
            for i, r in enumerate(reqs):
                ids = torch.tensor(
                    [b.block_id for b in mgr.req_to_blocks.get(r.request_id, ())],
                    dtype=torch.long,
                )
                picked.append(torch.masked_select(ids, torch.arange(ids.numel()) >= first[i]))
        return torch.unique(torch.cat(picked)).tolist()

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        ids = self._tail(sched.kv_cache_manager, reqs)
        if ids:
            sched.kv_cache_manager.evict_blocks(set(ids))
        if self.resume_on_fault:
            now = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, now, drop_stale_output=True)
                req.num_in_flight_tokens = 0
        else:
            aborted = sched.finish_requests(
                [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
