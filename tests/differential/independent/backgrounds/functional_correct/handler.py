# Intended: correct. Aborts every request after evicting each running request's unconfirmed tail in all KV-cache groups.
# Idioms: functional style: pure helpers returning new values, hand-written compose/pipe, comprehensions, frozenset union via reduce.
from __future__ import annotations

from functools import reduce
from typing import Callable, Iterable

from vllm.v1.request import RequestStatus


def pipe(value, *fns: Callable):
    return reduce(lambda acc, fn: fn(acc), fns, value)


def confirmed_tokens(req) -> int:
    return req.num_computed_tokens - req.num_in_flight_tokens


def first_dirty_index(req, block_size: int) -> int:
    return confirmed_tokens(req) // block_size


def tail_ids_in_group(manager, req) -> frozenset[int]:
    blocks = manager.req_to_blocks.get(req.request_id, ())
    start = first_dirty_index(req, manager.block_size)
    return frozenset(b.block_id for b in blocks[start:] if not b.is_null)


def tail_ids(managers) -> Callable:
    return lambda req: reduce(frozenset.union, (tail_ids_in_group(m, req) for m in managers), frozenset())


def union_all(sets: Iterable[frozenset[int]]) -> frozenset[int]:
    return reduce(frozenset.union, sets, frozenset())


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        per_request = tail_ids(tuple(kv.coordinator.single_type_managers))
        dirty = pipe(tuple(sched.running), lambda reqs: map(per_request, reqs), union_all, set)
        if dirty:
            kv.evict_blocks(dirty)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
