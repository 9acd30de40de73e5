"""KVJanitor: runs cleanup steps over faulted requests."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

CleanupStep = Callable[[Any], None]


class KVJanitor:
    def __init__(self, kv_manager: Any) -> None:
        self._kv = kv_manager

    def sweep(self, requests: Iterable[Any], steps: list[CleanupStep]) -> None:
        for request in requests:
            for step in steps:
                step(request)

    def evict_unconfirmed_tail(self, request: Any) -> None:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        doomed: set[int] = set()
        for manager in self._kv.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            first = confirmed // manager.block_size
            for block in blocks[first:]:
                if block.is_null:
                    continue
                doomed.add(block.block_id)
        if doomed:
            self._kv.evict_blocks(doomed)
