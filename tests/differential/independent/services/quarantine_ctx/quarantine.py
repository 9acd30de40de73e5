"""Context manager that collects block ids to quarantine and evicts them on exit."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

log = logging.getLogger("ft.quarantine")


class Quarantine:
    def __init__(self, kv_cache_manager) -> None:
        self.kv = kv_cache_manager
        self.block_ids: set[int] = set()

    def mark_tail(self, request) -> None:
        """Mark every block of ``request`` past its last confirmed full block."""
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for mgr in self.kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks[request.request_id]
            self.block_ids.update(b.block_id for b in blocks[confirmed // mgr.block_size :])


@contextlib.contextmanager
def quarantine(kv_cache_manager) -> Iterator[Quarantine]:
    q = Quarantine(kv_cache_manager)
    try:
        yield q
    finally:
        if q.block_ids:
            log.debug("quarantining %s", sorted(q.block_ids))
            kv_cache_manager.evict_blocks(q.block_ids)
