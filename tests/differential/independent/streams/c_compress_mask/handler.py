# Intended: correct.
# Idioms: itertools.compress with a lazily generated boolean mask (index >= first unconfirmed block, via count()), filterfalse to drop null blocks, a generator expression per KV-cache group flattened by chain; resume only, counters cleared after the preempt.
"""Resume-on-fault handler: scrub each request's unconfirmed tail with a
selector mask, then send every running request back to the waiting queue."""

from __future__ import annotations

import time
from itertools import chain, compress, count, filterfalse
from operator import attrgetter

_is_null = attrgetter("is_null")


def _mask(first_dirty: int):
    """True from block ``first_dirty`` on, forever (compress stops with the data)."""
    return (index >= first_dirty for index in count())


def dirty_blocks(request, manager):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    blocks = manager.req_to_blocks.get(request.request_id, ())
    selected = compress(blocks, _mask(max(confirmed, 0) // manager.block_size))
    return filterfalse(_is_null, selected)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        running = list(sched.running)

        blocks = chain.from_iterable(dirty_blocks(req, mgr) for req in running for mgr in managers)
        kv.evict_blocks({block.block_id for block in blocks})

        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
