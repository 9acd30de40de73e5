# Intended: buggy: the "not shared with another request" filter keeps only blocks with ref_cnt == 0, but the faulted request still holds its own tail blocks (ref_cnt 1), so every tail id is filtered out and nothing is evicted before the abort.
# Idioms: functional: predicates composed with a hand-written all_of, filter/map pipelines, sorted + itertools.groupby by request, generator expressions.
from __future__ import annotations

from itertools import chain, groupby
from operator import itemgetter

from vllm.v1.request import RequestStatus


def all_of(*preds):
    return lambda x: all(p(x) for p in preds)


not_null = lambda blk: not blk.is_null  # noqa: E731
not_shared = lambda blk: blk.ref_cnt == 0  # noqa: E731  -- another request may still be reading it
evictable = all_of(not_null, not_shared)


def tail_entries(req, managers):
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    return (
        (req.request_id, blk)
        for m in managers
        for blk in m.req_to_blocks.get(req.request_id, [])[confirmed // m.block_size:]
    )


def by_request(entries):
    ordered = sorted(entries, key=itemgetter(0))
    return {rid: [blk for _, blk in grp] for rid, grp in groupby(ordered, key=itemgetter(0))}


def evictable_ids(grouped) -> set[int]:
    return {blk.block_id for blk in filter(evictable, chain.from_iterable(grouped.values()))}


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        grouped = by_request(chain.from_iterable(tail_entries(r, managers) for r in sched.running))
        ids = evictable_ids(grouped)
        if ids:
            kv.evict_blocks(ids)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
