from __future__ import annotations

from collections.abc import Iterable

from vllm.v1.core.kv_cache_manager import KVCacheManager
from vllm.v1.request import Request


class AbortedRequestBlockCleaner:
    """Removes the prefix-cache entries of requests aborted by a fault."""

    def __init__(self, kv_cache_manager: KVCacheManager) -> None:
        self.kv_cache_manager = kv_cache_manager

    def _block_ids(self, request: Request) -> set[int]:
        block_ids: set[int] = set()
        # The request is aborted anyway: none of its blocks is worth keeping.
        for group_block_ids in self.kv_cache_manager.get_block_ids(request.request_id):
            block_ids.update(group_block_ids)
        return block_ids

    def evict(self, requests: Iterable[Request]) -> None:
        block_ids: set[int] = set()
        for request in requests:
            block_ids |= self._block_ids(request)
        if block_ids:
            self.kv_cache_manager.evict_blocks(block_ids)
