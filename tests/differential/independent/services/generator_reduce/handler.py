# Intended: correct.
# Idioms: generator functions, functools.reduce over sets, operator.or_, module-level helpers.
"""Abort on fault after invalidating the KV that the failed step was filling."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from functools import reduce

from vllm.v1.request import RequestStatus


def _confirmed_tokens(request) -> int:
    return request.num_computed_tokens - request.num_in_flight_tokens


def _tail_block_ids(managers, request) -> Iterator[set[int]]:
    confirmed = _confirmed_tokens(request)
    for manager in managers:
        blocks = manager.req_to_blocks[request.request_id]
        yield {block.block_id for block in blocks[confirmed // manager.block_size :]}


def _all_tail_ids(managers, requests: Iterable) -> Iterator[set[int]]:
    for request in requests:
        yield from _tail_block_ids(managers, request)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        stale = reduce(operator.or_, _all_tail_ids(managers, scheduler.running), set())
        kv.evict_blocks(stale)
        self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
