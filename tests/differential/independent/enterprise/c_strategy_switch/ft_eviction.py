"""Eviction strategies: which prefix-cache entries a fault invalidates."""

from __future__ import annotations

from abc import ABC, abstractmethod


class EvictionStrategy(ABC):
    """Removes the KV blocks a failed step may have left dirty from the prefix cache."""

    @abstractmethod
    def evict(self, scheduler, request) -> None:
        """Evict the suspicious blocks of ``request``. Must run before its blocks are freed."""


class UnconfirmedTailEviction(EvictionStrategy):
    """Evicts the blocks covering ``[computed - in_flight, computed)`` in every KV-cache group."""

    def evict(self, scheduler, request) -> None:
        manager = scheduler.kv_cache_manager
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        victims: set[int] = set()
        for group in manager.coordinator.single_type_managers:
            first_dirty = confirmed // group.block_size
            for block in group.req_to_blocks.get(request.request_id, [])[first_dirty:]:
                if not block.is_null:
                    victims.add(block.block_id)
        if victims:
            manager.evict_blocks(victims)
