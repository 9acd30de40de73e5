# Intended: buggy: the eviction stage takes only an islice window of max_scrub requests (1 by default) from the running queue and never reads the rest, so every other running request keeps its dirty tail in the prefix cache.
# Idioms: itertools.islice as a bounded window over the request stream, a generator stage per request, sum over a generator for the count, abort/resume switch.
# switch: RESUME
"""Fault handler with a bounded scrub: scanning block tables is paid on the
fault path, so at most ``max_scrub`` requests are scanned per fault."""

from __future__ import annotations

import time
from itertools import islice

from vllm.v1.request import RequestStatus


def tail_ids(request, managers):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    for mgr in managers:
        for block in mgr.req_to_blocks.get(request.request_id, ())[confirmed // mgr.block_size :]:
            if not block.is_null:
                yield block.block_id


class FaultHandler:
    RESUME = False

    def __init__(self, engine, max_scrub: int = 1) -> None:
        self.engine = engine
        self.max_scrub = max_scrub

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        running = list(sched.running)

        window = islice(running, self.max_scrub)
        dirty = {bid for req in window for bid in tail_ids(req, managers)}
        kv.evict_blocks(dirty)

        if not self.RESUME:
            aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        ts = time.monotonic()
        for req in reversed(running):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
