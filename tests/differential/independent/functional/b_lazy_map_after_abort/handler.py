# Intended: buggy: the eviction plan is a lazy map/filter chain that is only consumed after finish_requests has freed the requests and popped their block tables, so it yields no block ids and the dirty tail stays in the prefix cache.
# Idioms: lazy map/filter/chain.from_iterable pipeline, functools.partial, operator.attrgetter, pure planner plus imperative shell.
from __future__ import annotations

from functools import partial
from itertools import chain
from operator import attrgetter

from vllm.v1.request import RequestStatus

_block_id = attrgetter("block_id")


def _not_null(block) -> bool:
    return not block.is_null


def _tail(manager, request):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    blocks = manager.req_to_blocks.get(request.request_id, [])
    return blocks[max(confirmed, 0) // manager.block_size:]


def tail_ids(managers, request):
    return map(_block_id, filter(_not_null, chain.from_iterable(map(partial(_tail, request=request), managers))))


def eviction_plan(scheduler, requests):
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    return chain.from_iterable(map(partial(tail_ids, managers), requests))


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        requests = list(scheduler.running)
        plan = eviction_plan(scheduler, requests)
        aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        scheduler.kv_cache_manager.evict_blocks(set(plan))
        self.engine._send_abort_outputs(aborted)
