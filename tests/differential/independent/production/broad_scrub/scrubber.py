from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Abort:
    pass


@dataclass(frozen=True)
class Requeue:
    timestamp: float


class Scrubber:
    """Drops the prefix-cache entries of KV a faulted request may have touched."""

    def __init__(self, kv_manager: Any) -> None:
        self.kv_manager = kv_manager
        self.count = 0

    def scrub(self, request: Any) -> None:
        per_group = self.kv_manager.get_block_ids_for_computed_tokens(
            request.request_id, request.num_computed_tokens
        )
        ids = set(itertools.chain.from_iterable(per_group))
        ids.discard(0)  # the null block
        if ids:
            self.kv_manager.evict_blocks(ids)
            self.count += len(ids)
