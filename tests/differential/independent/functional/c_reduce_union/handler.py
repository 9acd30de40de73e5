# Intended: correct.
# Idioms: functools.reduce with operator.or_ to union per-group sets, functools.partial to bind the group, operator.methodcaller / attrgetter, lambdas, pure plan then a two-line shell.
from __future__ import annotations

from functools import partial, reduce
from operator import attrgetter, methodcaller, or_

from vllm.v1.request import RequestStatus

_block_id = attrgetter("block_id")
_request_id = attrgetter("request_id")
_managers = attrgetter("kv_cache_manager.coordinator.single_type_managers")


def _boundary(req) -> int:
    return max(0, req.num_computed_tokens - req.num_in_flight_tokens)


def _tail_ids(manager, req) -> set[int]:
    held = manager.req_to_blocks.get(req.request_id, [])
    tail = held[_boundary(req) // manager.block_size:]
    return set(map(_block_id, filter(lambda b: not b.is_null, tail)))


def _group_ids(manager, requests) -> set[int]:
    return reduce(or_, map(partial(_tail_ids, manager), requests), set())


def doomed_blocks(scheduler, requests) -> set[int]:
    return reduce(or_, (_group_ids(m, requests) for m in _managers(scheduler)), set())


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self._abort = methodcaller("finish_requests", None, RequestStatus.FINISHED_ABORTED)

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        requests = list(scheduler.running)
        scheduler.kv_cache_manager.evict_blocks(doomed_blocks(scheduler, requests))
        self.engine._send_abort_outputs(self._abort(scheduler))
