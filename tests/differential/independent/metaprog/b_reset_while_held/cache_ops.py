"""Cache operations resolved by name against whichever object owns them."""

from __future__ import annotations


class CacheOps:
    """Looks an operation up on the scheduler first, then its KV-cache manager,
    then the block pool, and calls the first one found."""

    def __init__(self, scheduler):
        self._owners = (
            scheduler.kv_cache_manager.block_pool,
            scheduler.kv_cache_manager,
            scheduler,
        )

    def __getattr__(self, op):
        for owner in reversed(self._owners):
            fn = getattr(owner, op, None)
            if callable(fn):
                return fn
        raise AttributeError(op)
