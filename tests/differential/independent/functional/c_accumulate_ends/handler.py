# Intended: correct.
# Idioms: itertools.accumulate to turn a block table into token end offsets, itertools.dropwhile to skip confirmed blocks, zip pipelines, lru_cache keyed on a hashable value (block size), resume-only shell.
"""Resume-only fault handler.

For every running request and KV-cache group the blocks are paired with the
token offset at which each one ends; blocks that end at or before the
confirmed boundary were written by steps that succeeded and stay cached.
"""

from __future__ import annotations

import time
from functools import lru_cache
from itertools import accumulate, dropwhile, repeat


@lru_cache(maxsize=None)
def _ends(block_size: int, n: int) -> tuple[int, ...]:
    return tuple(accumulate(repeat(block_size, n)))


def unconfirmed_blocks(blocks, block_size: int, confirmed: int):
    pairs = zip(_ends(block_size, len(blocks)), blocks)
    return (blk for _end, blk in dropwhile(lambda p: p[0] <= confirmed, pairs))


def tail_ids(request, managers):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    for mgr in managers:
        blocks = mgr.req_to_blocks.get(request.request_id, [])
        yield from (b.block_id for b in unconfirmed_blocks(blocks, mgr.block_size, confirmed)
                    if not b.is_null)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        running = list(sched.running)
        to_evict = {bid for req in running for bid in tail_ids(req, managers)}
        sched.kv_cache_manager.evict_blocks(to_evict)

        sched.running = []
        ts = time.monotonic()
        for req in reversed(running):
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
