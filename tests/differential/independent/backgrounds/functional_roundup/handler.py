# Intended: buggy: the tail boundary rounds the confirmed token count up to a block (ceil division), so a block that was only partly confirmed and then filled by the failed step is kept cached.
# Idioms: functional style: small pure functions, map/filter, tuple-returning helpers, dict comprehension keyed by group, resume only.
from __future__ import annotations

import time
from itertools import chain



def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def dirty_span(req, block_size: int) -> int:
    # first block that may hold tokens of the lost step
    return ceil_div(req.num_computed_tokens - req.num_in_flight_tokens, block_size)


def group_tails(req, managers) -> dict[int, tuple[int, ...]]:
    return {
        gid: tuple(b.block_id for b in m.req_to_blocks.get(req.request_id, [])[dirty_span(req, m.block_size):])
        for gid, m in enumerate(managers)
    }


def all_tail_ids(reqs, managers) -> set[int]:
    return set(chain.from_iterable(ids for req in reqs for ids in group_tails(req, managers).values()))


def reset_counters(req):
    req.num_in_flight_tokens = 0
    req.num_stale_output_tokens = 0
    return req


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = tuple(sched.running)
        ids = all_tail_ids(running, kv.coordinator.single_type_managers)
        if ids:
            kv.evict_blocks(ids)
        ts = time.monotonic()
        for req in running:
            sched.running.remove(req)
            sched._preempt_request(req, ts)
        list(map(reset_counters, running))
