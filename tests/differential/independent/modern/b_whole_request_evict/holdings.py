"""What a request holds in the KV cache, per group."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True, kw_only=True, frozen=True)
class Holding:
    request_id: str
    group: int
    block_ids: tuple[int, ...]


def holdings(kv_cache_manager: Any, request_id: str) -> Iterator[Holding]:
    per_group = kv_cache_manager.get_blocks(request_id).blocks
    for group, blocks in enumerate(per_group):
        if ids := tuple(b.block_id for b in blocks if not b.is_null):
            yield Holding(request_id=request_id, group=group, block_ids=ids)
