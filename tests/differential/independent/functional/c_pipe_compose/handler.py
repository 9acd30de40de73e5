# Intended: correct.
# Idioms: local pipe/compose helpers, frozen dataclass plan, map/filter pipeline, operator.attrgetter, functools.partial, pure planner plus imperative shell.
"""Fault handler: drop the unconfirmed KV tail from the prefix cache, then abort.

The handler is split in two: ``plan_eviction`` is a pure function of the
scheduler's state and returns an immutable plan; ``on_fault`` only executes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial, reduce
from operator import attrgetter

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


def compose(*fns):
    """compose(f, g, h)(x) == f(g(h(x)))."""
    return reduce(lambda f, g: lambda x: f(g(x)), fns, lambda x: x)


def pipe(value, *fns):
    """pipe(x, f, g) == g(f(x))."""
    return reduce(lambda acc, fn: fn(acc), fns, value)


@dataclass(frozen=True)
class EvictionPlan:
    request_ids: tuple[str, ...]
    block_ids: frozenset[int]


def confirmed_tokens(request) -> int:
    return max(request.num_computed_tokens - request.num_in_flight_tokens, 0)


def tail_of(blocks, block_size: int, confirmed: int):
    """Blocks from the one holding the confirmed boundary to the end."""
    return blocks[confirmed // block_size:]


def _usable(block) -> bool:
    return not block.is_null and block.block_hash is not None


def tail_block_ids(managers, request) -> frozenset[int]:
    confirmed = confirmed_tokens(request)
    per_manager = (
        pipe(
            mgr.req_to_blocks.get(request.request_id, ()),
            list,
            partial(tail_of, block_size=mgr.block_size, confirmed=confirmed),
            partial(filter, _usable),
            partial(map, attrgetter("block_id")),
            frozenset,
        )
        for mgr in managers
    )
    return frozenset().union(*per_manager)


def plan_eviction(scheduler) -> EvictionPlan:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    running = tuple(scheduler.running)
    ids_of = compose(frozenset, partial(map, partial(tail_block_ids, managers)))
    return EvictionPlan(
        request_ids=tuple(map(attrgetter("request_id"), running)),
        block_ids=frozenset().union(*ids_of(running)) if running else frozenset(),
    )


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        plan = plan_eviction(scheduler)
        logger.warning("fault %r: evicting %d tail blocks of %d requests",
                       exc, len(plan.block_ids), len(plan.request_ids))
        if plan.block_ids:
            scheduler.kv_cache_manager.evict_blocks(set(plan.block_ids))
        aborted = scheduler.finish_requests(plan.request_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
