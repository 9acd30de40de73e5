"""Small service that knows how to drop the unconfirmed tail of a request's KV."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TailSpan:
    """The blocks of one request, in one KV-cache group, that a lost step wrote."""

    request_id: str
    group: int
    block_ids: tuple[int, ...] = field(default_factory=tuple)

    def __bool__(self) -> bool:
        return bool(self.block_ids)


class TailEvictor:
    """Removes never-confirmed blocks from the prefix cache."""

    def __init__(self, kv_cache_manager) -> None:
        self._kv = kv_cache_manager

    @property
    def _managers(self):
        return self._kv.coordinator.single_type_managers

    def spans_for(self, request) -> list[TailSpan]:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        spans = []
        for group, manager in enumerate(self._managers):
            first_dirty = confirmed // manager.block_size
            blocks = manager.req_to_blocks.get(request.request_id, [])
            ids = tuple(b.block_id for b in blocks[first_dirty:] if not b.is_null)
            spans.append(TailSpan(request.request_id, group, ids))
        return spans

    def evict(self, requests) -> int:
        doomed: set[int] = set()
        for request in requests:
            for span in self.spans_for(request):
                if span:
                    doomed.update(span.block_ids)
        if doomed:
            logger.info("evicting %d unconfirmed KV blocks", len(doomed))
            self._kv.evict_blocks(doomed)
        return len(doomed)
