# Intended: buggy: evicting the unconfirmed tail is behind an environment flag that defaults to off, so with default settings the handler aborts without evicting anything and the dirty blocks stay cached.
# Idioms: functools.lru_cache for the settings read, pure planner with generator expressions, itertools.chain, compress-style gating with a boolean, abort-only shell.
from __future__ import annotations

import os
from functools import lru_cache
from itertools import chain

from vllm.v1.request import RequestStatus


@lru_cache(maxsize=1)
def evict_on_fault() -> bool:
    return os.environ.get("FT_EVICT_UNCONFIRMED_KV", "0").lower() in {"1", "true", "yes"}


def tail_ids(requests, managers):
    def one(r, m):
        first = max(r.num_computed_tokens - r.num_in_flight_tokens, 0) // m.block_size
        return (b.block_id for b in m.req_to_blocks.get(r.request_id, ())[first:] if not b.is_null)

    return set(chain.from_iterable(one(r, m) for r in requests for m in managers))


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        doomed = tail_ids(requests, managers) if evict_on_fault() else set()
        if doomed:
            sched.kv_cache_manager.evict_blocks(doomed)
        aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
