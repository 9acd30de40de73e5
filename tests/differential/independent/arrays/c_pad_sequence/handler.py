# Intended: correct.
# Idioms: torch.nn.utils.rnn.pad_sequence to batch ragged block tables (padding -1), broadcasting torch.arange(T)[None, :] against a per-request first-dirty column vector, boolean indexing plus torch.unique, .tolist() before evict_blocks, abort only.
"""Abort-on-fault handler that treats the running batch's block tables as one
padded tensor per KV-cache group."""

from __future__ import annotations

import torch
from torch.nn.utils.rnn import pad_sequence

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _tail_mask(self, tables: torch.Tensor, confirmed: torch.Tensor, block_size: int):
        first = torch.div(confirmed, block_size, rounding_mode="floor")
        cols = torch.arange(tables.shape[1])
        return (cols[None, :] >= first[:, None]) & (tables >= 0)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        batch = list(sched.running)
        if not batch:
            return
        kvm = sched.kv_cache_manager
        confirmed = torch.tensor(
            [r.num_computed_tokens for r in batch], dtype=torch.long
        ) - torch.tensor([r.num_in_flight_tokens for r in batch], dtype=torch.long)

        picked = []
        for mgr in kvm.coordinator.single_type_managers:
            rows = [
                torch.tensor(
                    [b.block_id for b in mgr.req_to_blocks.get(r.request_id, ())],
                    dtype=torch.long,
                )
                for r in batch
            ]
            tables = pad_sequence(rows, batch_first=True, padding_value=-1)
            if tables.numel() == 0:
                continue
            picked.append(tables[self._tail_mask(tables, confirmed, mgr.block_size)])
        if picked:
            dirty = torch.unique(torch.cat(picked))
            if dirty.numel():
                kvm.evict_blocks(set(dirty.tolist()))

        aborted = sched.finish_requests(
            [r.request_id for r in batch], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
