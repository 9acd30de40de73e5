# Intended: buggy: it requeues each request with drop_stale_output=True, so the in-flight share of the failed step is marked to be dropped, and since that step's frame never arrives the first good output frame after resume is the one thrown away.
# Idioms: a deque-based work queue of callable command objects, where a command can return
# Idioms: follow-up commands (preempt -> fix counters); evictions queued first; resume-only.
from __future__ import annotations

import time
from dataclasses import dataclass

from work_queue import drain


@dataclass(frozen=True)
class EvictTail:
    request_id: str
    confirmed: int

    def __call__(self, sched):
        ids = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(self.request_id, [])
            ids |= {b.block_id for b in blocks[self.confirmed // mgr.block_size :] if not b.is_null}
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)


@dataclass(frozen=True)
class ClearInFlight:
    request_id: str

    def __call__(self, sched):
        sched.requests[self.request_id].num_in_flight_tokens = 0


@dataclass(frozen=True)
class Requeue:
    request_id: str
    timestamp: float

    def __call__(self, sched):
        req = sched.requests[self.request_id]
        sched.running.remove(req)
        # Whatever the failed step produced must not reach the client: drop it.
        sched._preempt_request(req, self.timestamp, drop_stale_output=True)
        return [ClearInFlight(self.request_id)]


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        now = time.monotonic()
        work = [EvictTail(r.request_id, r.num_computed_tokens - r.num_in_flight_tokens) for r in running]
        work += [Requeue(r.request_id, now) for r in reversed(running)]
        drain(sched, work)
