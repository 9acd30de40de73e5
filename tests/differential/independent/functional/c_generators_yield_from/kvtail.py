"""Generators over the KV blocks a faulted step may have left dirty."""

from __future__ import annotations

from itertools import islice


def managers_of(scheduler):
    yield from scheduler.kv_cache_manager.coordinator.single_type_managers


def tail_blocks(request, manager):
    """The block holding the confirmed boundary and everything after it."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    blocks = manager.req_to_blocks.get(request.request_id, ())
    yield from islice(blocks, max(confirmed, 0) // manager.block_size, None)


def request_tail(request, managers):
    for manager in managers:
        yield from tail_blocks(request, manager)


def dirty_block_ids(requests, managers):
    managers = tuple(managers)  # walked once per request
    for request in requests:
        yield from (b.block_id for b in request_tail(request, managers) if not b.is_null)
