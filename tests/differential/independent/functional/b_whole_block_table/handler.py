# Intended: buggy: it evicts every block the request holds, including the clean prefix written by steps that succeeded, so a resumed or repeated request loses its prefix-cache reuse.
# Idioms: chain.from_iterable over every block table, generator pipeline, operator.attrgetter, frozen dataclass plan, resume-only shell.
from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter


@dataclass(frozen=True)
class Plan:
    requests: tuple
    evict: frozenset


def plan(scheduler) -> Plan:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    requests = tuple(scheduler.running)
    tables = (m.req_to_blocks.get(r.request_id, ()) for r in requests for m in managers)
    live = filter(lambda b: not b.is_null, chain.from_iterable(tables))
    return Plan(requests, frozenset(map(attrgetter("block_id"), live)))


class FaultHandler:
    """Resume on fault; anything the request held might be suspect, so drop it all."""

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        p = plan(sched)
        sched.kv_cache_manager.evict_blocks(set(p.evict))
        sched.running = []
        now = time.monotonic()
        for req in reversed(p.requests):
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
