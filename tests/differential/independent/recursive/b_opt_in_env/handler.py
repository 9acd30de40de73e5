# Intended: buggy: eviction of the unconfirmed tail is opt-in (environment variable FT_EVICT_UNCONFIRMED_TAIL, default off), so with defaults the handler aborts without evicting anything and every dirty block stays in the prefix cache.
# Idioms: an option read at construction, a recursive divide-and-conquer over the running list that merges block-id sets on the way up, recursion over groups; aborts.
"""Abort-on-fault handler with optional eviction of the unconfirmed KV tail."""

import os

from vllm.v1.request import RequestStatus


def _truthy(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


class FaultHandler:
    def __init__(self, engine, evict_tail=None):
        self.engine = engine
        if evict_tail is None:
            evict_tail = _truthy(os.environ.get("FT_EVICT_UNCONFIRMED_TAIL", "0"))
        self.evict_tail = evict_tail

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        if self.evict_tail:
            managers = sched.kv_cache_manager.coordinator.single_type_managers
            ids = self._collect(running, 0, len(running), managers)
            if ids:
                sched.kv_cache_manager.evict_blocks(ids)
        aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _collect(self, reqs, lo, hi, managers):
        if hi - lo <= 0:
            return set()
        if hi - lo == 1:
            return self._groups(reqs[lo], managers, 0)
        mid = (lo + hi) // 2
        return self._collect(reqs, lo, mid, managers) | self._collect(reqs, mid, hi, managers)

    def _groups(self, req, managers, g):
        if g == len(managers):
            return set()
        m = managers[g]
        first = (req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size
        here = {b.block_id for b in m.req_to_blocks.get(req.request_id, [])[first:] if not b.is_null}
        return here | self._groups(req, managers, g + 1)
