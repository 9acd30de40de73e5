# Intended: correct.
# Idioms: itertools.compress with a boolean mask built by map, itertools.count, chain.from_iterable, generator pipelines, abort/resume switch.
# switch: resume
from __future__ import annotations

import time
from itertools import chain, compress, count

from vllm.v1.request import RequestStatus


def _mask(blocks, first_dirty):
    """True for every block at or after the first dirty index (and not the null pad)."""
    return map(lambda i, b: i >= first_dirty and not b.is_null, count(), blocks)


def _dirty_in(manager, request):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    blocks = manager.req_to_blocks.get(request.request_id, ())
    return (b.block_id for b in compress(blocks, _mask(blocks, max(confirmed, 0) // manager.block_size)))


def dirty_ids(scheduler, requests):
    mgrs = scheduler.kv_cache_manager.coordinator.single_type_managers
    return set(chain.from_iterable(_dirty_in(m, r) for r in requests for m in mgrs))


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        sched.kv_cache_manager.evict_blocks(dirty_ids(sched, requests))
        if not self.resume:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            )
            return
        now = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            # Zero the in-flight count first: the preempt copies it into the
            # stale-output counter, so both end at zero.
            req.num_in_flight_tokens = 0
            sched._preempt_request(req, now)
