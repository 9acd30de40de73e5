"""Select the unconfirmed tail of each request's block table, per KV-cache group."""

from __future__ import annotations

import numpy as np


def tail_ids(kv_cache_manager, requests) -> np.ndarray:
    confirmed = np.array(
        [r.num_computed_tokens - r.num_in_flight_tokens for r in requests], dtype=np.int64
    )
    parts = [np.empty(0, dtype=np.int64)]
    for mgr in kv_cache_manager.coordinator.single_type_managers:
        first = confirmed // mgr.block_size
        for r, f in zip(requests, first):
            ids = np.array(
                [b.block_id for b in mgr.req_to_blocks.get(r.request_id, ())], dtype=np.int64
            )
            parts.append(ids[np.arange(ids.size) >= f])
    return np.unique(np.concatenate(parts))
