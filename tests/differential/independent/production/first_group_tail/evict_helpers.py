from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def for_each_request(requests: Iterable[Any], fn: Callable[[Any], None]) -> None:
    for request in list(requests):
        fn(request)


class TailEvictor:
    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self.evicted = 0

    @property
    def scheduler(self) -> Any:
        return self._engine.scheduler

    @property
    def kv_manager(self) -> Any:
        return self.scheduler.kv_cache_manager

    def evict_tail(self, request: Any) -> None:
        if not request.num_in_flight_tokens:
            return
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        blocks = self.kv_manager.get_blocks(request.request_id).blocks[0]
        tail = {b.block_id for b in blocks[confirmed // self.scheduler.block_size :] if not b.is_null}
        if tail:
            self.kv_manager.evict_blocks(tail)
            self.evicted += len(tail)
