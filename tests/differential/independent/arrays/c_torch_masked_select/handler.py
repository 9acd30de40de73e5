# Intended: correct.
# Idioms: torch.long block tables per KV-cache group, torch.div(..., rounding_mode="floor") for the first dirty block, torch.masked_select with an arange >= boundary mask, .tolist() into a set, abort or preempt-and-resume switch with both counters cleared after the preempt.
# switch: resume_on_fault
"""Fault handler that either aborts or requeues the running batch; in both cases
the blocks written by the lost step are evicted first."""

from __future__ import annotations

import time

import torch

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        reqs = list(scheduler.running)
        if not reqs:
            return
        victims = self._dirty_block_ids(scheduler, reqs)
        if victims:
            scheduler.kv_cache_manager.evict_blocks(victims)
        if self.resume_on_fault:
            self._requeue(scheduler)
        else:
            aborted = scheduler.finish_requests(
                [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _dirty_block_ids(scheduler, reqs) -> set[int]:
        confirmed = torch.tensor(
            [r.num_computed_tokens - r.num_in_flight_tokens for r in reqs],
            dtype=torch.long,
        )
        ids: set[int] = set()
        for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
            first = torch.div(confirmed, mgr.block_size, rounding_mode="floor")
            for k, r in enumerate(reqs):
                table = torch.tensor(
                    [b.block_id for b in mgr.req_to_blocks.get(r.request_id, ())],
                    dtype=torch.long,
                )
                if table.numel() == 0:
                    continue
                keep = torch.arange(table.numel()) >= first[k]
                ids.update(torch.masked_select(table, keep).tolist())
        return ids

    @staticmethod
    def _requeue(scheduler):
        now = time.monotonic()
        # Pop from the back so the waiting queue keeps the running order.
        while scheduler.running:
            req = scheduler.running.pop()
            scheduler._preempt_request(req, now)
            # The failed step's output never arrives: nothing is in flight or stale.
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
