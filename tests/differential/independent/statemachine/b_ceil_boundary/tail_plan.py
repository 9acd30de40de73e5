"""Planning what the lost step dirtied: one ``TailPlan`` per request and KV group."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TailPlan:
    request_id: str
    group: int
    first_index: int
    block_ids: tuple[int, ...]


def plan_request(request, managers) -> list[TailPlan]:
    confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
    plans = []
    for group, mgr in enumerate(managers):
        blocks = mgr.req_to_blocks.get(request.request_id, [])
        # First block that lies wholly past the confirmed tokens.
        first = -(-confirmed // mgr.block_size)
        ids = tuple(b.block_id for b in blocks[first:] if not b.is_null)
        if ids:
            plans.append(TailPlan(request.request_id, group, first, ids))
    return plans
