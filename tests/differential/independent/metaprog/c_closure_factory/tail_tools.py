"""Closure factories for fault recovery: one tail selector per KV-cache group."""

from __future__ import annotations

from functools import partial
from operator import attrgetter, methodcaller

_ids = attrgetter("block_id")


def make_selector(manager):
    """A closure returning the ids this group's manager holds for a request
    from the block that contains its confirmed boundary on."""
    size = manager.block_size
    table = manager.req_to_blocks

    def select(request):
        boundary = request.num_computed_tokens - request.num_in_flight_tokens
        return {_ids(b) for b in table.get(request.request_id, [])[boundary // size :] if not b.is_null}

    select.__name__ = f"select_{type(manager).__name__}_{manager.kv_cache_group_id}"
    return select


def make_evictor(kv_cache_manager):
    selectors = [make_selector(m) for m in kv_cache_manager.coordinator.single_type_managers]
    evict = methodcaller  # alias: calls are built per batch below

    def evict_tails(requests):
        ids = set()
        for select in selectors:
            for req in requests:
                ids |= select(req)
        if ids:
            evict("evict_blocks", ids)(kv_cache_manager)
        return ids

    return evict_tails


def make_requeuer(scheduler, clock):
    def requeue(requests):
        stamp = clock()
        for req in reversed(requests):
            scheduler.running.remove(req)
            scheduler._preempt_request(req, stamp)
            req.num_in_flight_tokens = req.num_stale_output_tokens = 0

    return requeue


def make_aborter(scheduler, status, notify=None):
    finish = partial(scheduler.finish_requests, finished_status=status)

    def abort(requests):
        if not requests:
            return []
        done = finish([r.request_id for r in requests])
        if notify is not None:
            notify(done)
        return done

    return abort
