"""Thin __getattr__ proxies over vLLM's scheduler and KV-cache manager.

The proxies forward every unknown attribute to the wrapped object, so callers
can treat them as the real thing while picking up a few conveniences.
"""

from __future__ import annotations


class _Forwarding:
    __slots__ = ("_target",)

    def __init__(self, target):
        object.__setattr__(self, "_target", target)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "_target"), name)

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_target"), name, value)

    def __repr__(self):
        return f"<{type(self).__name__} for {self._target!r}>"


class KVManagerFacade(_Forwarding):
    """Forwards to a KVCacheManager; adds per-group access to request blocks."""

    __slots__ = ()

    @property
    def groups(self):
        return self.coordinator.single_type_managers

    def blocks_from(self, request_id, token_index):
        """Block ids the request holds from the block containing ``token_index``
        onwards, in every KV-cache group (null padding blocks skipped)."""
        found = set()
        for group in self.groups:
            held = group.req_to_blocks.get(request_id, [])
            start = token_index // group.block_size
            found.update(b.block_id for b in held[start:] if not b.is_null)
        return found


class SchedulerFacade(_Forwarding):
    """Forwards to a Scheduler; ``kv`` wraps its KV-cache manager."""

    __slots__ = ()

    @property
    def kv(self):
        return KVManagerFacade(self.kv_cache_manager)

    def running_snapshot(self):
        return tuple(self.running)
