from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PendingRange:
    """Tokens ``[start, end)`` of a request whose KV was not confirmed."""

    request_id: str
    start: int
    end: int

    @classmethod
    def of(cls, request: Any) -> PendingRange:
        return cls(request.request_id, request.num_computed_tokens, request.num_tokens)

    def block_ids(self, managers: Iterable[Any]) -> set[int]:
        ids: set[int] = set()
        for manager in managers:
            blocks = manager.req_to_blocks.get(self.request_id, [])
            first = self.start // manager.block_size
            last = -(-self.end // manager.block_size)
            ids.update(b.block_id for b in blocks[first:last] if not b.is_null)
        return ids
