# Intended: buggy: it preempts with drop_stale_output=True, which marks the request to drop its next output frame as stale; the failed step's frame never arrives, so the first good frame after resume is dropped.
# Idioms: generator stages joined with yield from, itertools.groupby over a request-sorted record stream to count blocks per request, a dict-of-sets sink, resume only.
"""Resume-on-fault: evict each request's unconfirmed tail, then requeue it,
telling the scheduler to discard whatever the lost step would have sent."""

from __future__ import annotations

import time
from itertools import groupby
from operator import itemgetter


def records(request, managers):
    confirmed = max(request.num_computed_tokens - request.num_in_flight_tokens, 0)
    for mgr in managers:
        for block in mgr.req_to_blocks.get(request.request_id, ())[confirmed // mgr.block_size :]:
            if not block.is_null:
                yield request.request_id, block.block_id


def all_records(requests, managers):
    for req in requests:
        yield from records(req, managers)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine
        self.evicted_per_request: dict[str, int] = {}

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)

        by_request = {
            rid: {bid for _, bid in run}
            for rid, run in groupby(all_records(running, kv.coordinator.single_type_managers), key=itemgetter(0))
        }
        dirty = set().union(*by_request.values())
        kv.evict_blocks(dirty)
        self.evicted_per_request = {rid: len(ids) for rid, ids in by_request.items()}

        ts = time.monotonic()
        for req in reversed(running):
            sched.running.remove(req)
            sched._preempt_request(req, ts, drop_stale_output=True)
            req.num_in_flight_tokens = 0
