"""A flat, vectorised view of the scheduler's per-request block tables.

Every (request, group, position) cell is one row of a numpy structured array,
so that a whole batch can be filtered with one boolean mask."""

from __future__ import annotations

import numpy as np

CELL = np.dtype(
    [("req", np.int32), ("group", np.int16), ("pos", np.int32), ("block", np.int64)]
)
REQ = np.dtype([("computed", np.int64), ("in_flight", np.int64)])


class BlockTable:
    def __init__(self, kv_cache_manager, requests):
        self.requests = list(requests)
        self._managers = kv_cache_manager.coordinator.single_type_managers
        self.block_size = np.array([m.block_size for m in self._managers], dtype=np.int64)
        self.reqs = np.array(
            [(r.num_computed_tokens, r.num_in_flight_tokens) for r in self.requests],
            dtype=REQ,
        )
        cells = [
            (i, g, pos, blk.block_id)
            for i, r in enumerate(self.requests)
            for g, mgr in enumerate(self._managers)
            for pos, blk in enumerate(mgr.req_to_blocks.get(r.request_id, ()))
        ]
        self.cells = np.array(cells, dtype=CELL)

    def first_unconfirmed_block(self) -> np.ndarray:
        """(n_req, n_groups): index of the block holding the confirmed boundary."""
        confirmed = self.reqs["computed"] - self.reqs["in_flight"]
        return confirmed[:, None] // self.block_size[None, :]

    def unconfirmed_block_ids(self) -> list[int]:
        if self.cells.size == 0:
            return []
        first = self.first_unconfirmed_block()
        c = self.cells
        mask = c["pos"] >= first[c["req"], c["group"]]
        return np.unique(c["block"][mask]).tolist()
