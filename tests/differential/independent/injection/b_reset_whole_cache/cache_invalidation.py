"""Cache invalidation collaborators for the fault handler."""

from __future__ import annotations

import logging
from typing import Any, Protocol

log = logging.getLogger(__name__)


class CacheInvalidator(Protocol):
    def invalidate(self) -> None: ...


class PrefixCacheReset:
    """After a fault nothing in the prefix cache can be trusted: drop it all."""

    def __init__(self, kv_cache_manager: Any) -> None:
        self.kv_cache_manager = kv_cache_manager

    def invalidate(self) -> None:
        if not self.kv_cache_manager.reset_prefix_cache():
            log.debug("prefix cache reset deferred")
