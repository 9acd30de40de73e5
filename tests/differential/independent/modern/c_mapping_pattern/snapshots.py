"""Plain-mapping snapshots of the requests a fault interrupted."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class RequestSnapshot(TypedDict):
    id: str
    computed: int
    in_flight: int
    groups: list[list[tuple[int, bool]]]  # per KV-cache group: (block_id, is_null)
    block_sizes: list[int]
    note: NotRequired[str]


def snapshot(request: Any, managers: Any) -> RequestSnapshot:
    return RequestSnapshot(
        id=request.request_id,
        computed=request.num_computed_tokens,
        in_flight=request.num_in_flight_tokens,
        groups=[[(b.block_id, b.is_null) for b in m.req_to_blocks.get(request.request_id, [])] for m in managers],
        block_sizes=[m.block_size for m in managers],
    )
