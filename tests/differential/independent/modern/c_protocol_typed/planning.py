"""Build eviction plans: pure functions over Protocol-typed vLLM objects."""

from __future__ import annotations

from collections.abc import Iterable

from ft_types import EvictionPlan, Managers, RequestLike


def plan_for(request: RequestLike, managers: Managers) -> EvictionPlan:
    confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
    ids: list[int] = []
    for mgr in managers:
        held = mgr.req_to_blocks.get(request.request_id, [])
        ids.extend(b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null)
    return EvictionPlan(request_id=request.request_id, confirmed=confirmed, block_ids=ids)


def plans_for(requests: Iterable[RequestLike], managers: Managers) -> list[EvictionPlan]:
    return [plan_for(r, managers) for r in requests]


def union_ids(plans: Iterable[EvictionPlan]) -> set[int]:
    return {bid for plan in plans for bid in plan["block_ids"]}
