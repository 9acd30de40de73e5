# Intended: correct.
# Idioms: NamedTuple records, comprehension-built immutable plan, operator.attrgetter / methodcaller, chain.from_iterable, resume-only imperative shell.
"""Resume on fault: every running request goes back to the waiting queue and,
once the engine recovers, re-hits its own clean prefix.  Only the tail that the
failed step wrote (or did not write) is dropped from the prefix cache first."""

from __future__ import annotations

import time
from itertools import chain
from operator import attrgetter, methodcaller
from typing import NamedTuple


class TailSlice(NamedTuple):
    request_id: str
    group: int
    first_block: int
    block_ids: tuple[int, ...]


class Plan(NamedTuple):
    requests: tuple
    slices: tuple[TailSlice, ...]

    @property
    def evict(self) -> set[int]:
        return set(chain.from_iterable(map(attrgetter("block_ids"), self.slices)))


def _slice(request, group: int, manager) -> TailSlice:
    boundary = request.num_computed_tokens - request.num_in_flight_tokens
    first = max(boundary, 0) // manager.block_size
    held = manager.req_to_blocks.get(request.request_id, [])
    return TailSlice(
        request.request_id,
        group,
        first,
        tuple(b.block_id for b in held[first:] if not b.is_null),
    )


def make_plan(scheduler) -> Plan:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    requests = tuple(scheduler.running)
    return Plan(
        requests,
        tuple(_slice(r, g, m) for r in requests for g, m in enumerate(managers)),
    )


_clear_in_flight = methodcaller("__setattr__", "num_in_flight_tokens", 0)
_clear_stale = methodcaller("__setattr__", "num_stale_output_tokens", 0)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        plan = make_plan(scheduler)
        scheduler.kv_cache_manager.evict_blocks(plan.evict)

        stamp = time.monotonic()
        scheduler.running = []
        for request in reversed(plan.requests):
            scheduler._preempt_request(request, stamp)
        list(map(_clear_in_flight, plan.requests))
        list(map(_clear_stale, plan.requests))
