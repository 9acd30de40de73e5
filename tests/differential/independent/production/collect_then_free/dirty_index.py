from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class DirtyIndex:
    by_group: defaultdict[int, set[int]] = field(default_factory=lambda: defaultdict(set))

    @classmethod
    def collect(cls, kv_manager: Any, requests: Iterable[Any]) -> DirtyIndex:
        index = cls()
        managers = kv_manager.coordinator.single_type_managers
        for request in requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for gid, manager in enumerate(managers):
                for block in manager.req_to_blocks.get(request.request_id, [])[confirmed // manager.block_size :]:
                    if block.is_null:
                        continue
                    index.by_group[gid].add(block.block_id)
        return index

    def evict(self, kv_manager: Any) -> int:
        total = 0
        for ids in self.by_group.values():
            kv_manager.evict_blocks(ids)
            total += len(ids)
        return total
