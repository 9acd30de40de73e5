from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vllm.v1.request import Request


class UnconfirmedTailEvictionMixin:
    """Evicts the KV blocks of a failed step from the prefix cache.

    The class using this mixin must set ``self.engine`` (an engine core with
    a ``scheduler``).
    """

    engine: Any

    def _unconfirmed_block_ids(self, request: Request) -> set[int]:
        """Block IDs of ``request`` that may hold KV of the failed step."""
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        num_confirmed_tokens = (
            request.num_computed_tokens - request.num_in_flight_tokens
        )
        block_ids: set[int] = set()
        for manager in coordinator.single_type_managers:
            req_blocks = manager.req_to_blocks[request.request_id]
            start = num_confirmed_tokens // manager.block_size
            block_ids.update(blk.block_id for blk in req_blocks[start:])
        return block_ids

    def _evict_unconfirmed_tails(self, requests: Iterable[Request]) -> int:
        """Evict the unconfirmed tail of each request; returns how many
        block IDs were evicted. Must run before the requests' blocks are
        freed (preempt / abort pop ``req_to_blocks``)."""
        block_ids: set[int] = set()
        for request in requests:
            block_ids |= self._unconfirmed_block_ids(request)
        if not block_ids:
            return 0
        self.engine.scheduler.kv_cache_manager.evict_blocks(block_ids)
        return len(block_ids)
