"""A KV-cache manager proxy that batches evictions until ``flush()``.

Callers ``mark(request_id, from_token)``; the proxy resolves those marks into
block ids and evicts them in one ``evict_blocks`` call when flushed.  Every
other attribute is forwarded to the real manager.
"""

from __future__ import annotations


class DeferredEvictionKV:
    def __init__(self, kv_cache_manager):
        self._kv = kv_cache_manager
        self._marks = []

    def __getattr__(self, name):
        return getattr(self._kv, name)

    def mark(self, request_id, from_token):
        self._marks.append((request_id, from_token))

    def _resolve(self):
        ids = set()
        for mgr in self._kv.coordinator.single_type_managers:
            for request_id, from_token in self._marks:
                held = mgr.req_to_blocks.get(request_id, [])
                ids.update(b.block_id for b in held[from_token // mgr.block_size :] if not b.is_null)
        return ids

    def flush(self):
        ids = self._resolve()
        self._marks.clear()
        if ids:
            self._kv.evict_blocks(ids)
        return ids

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.flush()
        return False
