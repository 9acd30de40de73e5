# Intended: buggy: the first tail block is computed with a ceiling division, so when the confirmed boundary falls inside a block that partly-confirmed block (the one the failed decode step just filled) is skipped and stays cached.
# Idioms: helper functions composed with a local compose, operator.attrgetter, itertools.starmap over (request, manager) pairs, set comprehension.
from __future__ import annotations

from functools import reduce
from itertools import product, starmap
from operator import attrgetter

from vllm.v1.request import RequestStatus


def compose(*fns):
    return reduce(lambda f, g: lambda *a: f(g(*a)), fns)


def first_unconfirmed_block(confirmed: int, block_size: int) -> int:
    # Round up: a block is only worth dropping once the boundary has passed its start.
    return -(-confirmed // block_size)


def _confirmed(request) -> int:
    return max(request.num_computed_tokens - request.num_in_flight_tokens, 0)


def tail(request, manager):
    first = first_unconfirmed_block(_confirmed(request), manager.block_size)
    return [b for b in manager.req_to_blocks.get(request.request_id, ())[first:] if not b.is_null]


tail_ids = compose(frozenset, lambda blocks: map(attrgetter("block_id"), blocks), tail)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = tuple(sched.running)
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        doomed = {bid for ids in starmap(tail_ids, product(running, managers)) for bid in ids}
        sched.kv_cache_manager.evict_blocks(doomed)
        aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
