# Intended: buggy: eviction of the unconfirmed tail only runs when the environment variable VLLM_FT_EVICT_UNCONFIRMED is set to 1, and it defaults to off, so with default settings the handler aborts and leaves every block the lost step cached in the prefix cache.
# Idioms: helper module returning np.unique(np.concatenate(...)) of per-group tails selected with np.arange(n) >= first, option read from the environment in the constructor, .tolist() before evict_blocks, abort only.
"""Abort handler with opt-in eviction of the unconfirmed KV tail."""

from __future__ import annotations

import os

from tailsel import tail_ids
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine, evict_unconfirmed: bool | None = None):
        self.engine = engine
        if evict_unconfirmed is None:
            evict_unconfirmed = os.environ.get("VLLM_FT_EVICT_UNCONFIRMED", "0") == "1"
        self.evict_unconfirmed = evict_unconfirmed

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        if self.evict_unconfirmed:
            ids = tail_ids(sched.kv_cache_manager, reqs)
            if ids.size:
                sched.kv_cache_manager.evict_blocks(set(ids.tolist()))
        aborted = sched.finish_requests(
            [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
