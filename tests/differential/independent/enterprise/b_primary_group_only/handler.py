# Intended: buggy: the default block-table provider reads only the first KV-cache group, so with a hybrid model (full plus sliding-window attention) the unconfirmed tail blocks of the second group keep their prefix-cache hashes.
# Idioms: typing.Protocol for the block-table provider, a default implementation injected through the constructor, template-method base class with abstract release step, abort/resume subclasses chosen by a factory from a class-attribute switch.
# switch: resume
"""Fault handler: evict the unconfirmed tail, then release the requests."""

from __future__ import annotations

from release_steps import ReleaseStepFactory
from table_provider import BlockTableProvider, PrimaryGroupTables


class FaultHandler:
    resume = False

    def __init__(self, engine, tables: BlockTableProvider | None = None, steps: ReleaseStepFactory | None = None) -> None:
        self.engine = engine
        self._tables = tables or PrimaryGroupTables()
        self._steps = steps or ReleaseStepFactory()

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        requests = list(scheduler.running)
        evict: set[int] = set()
        for request in requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for block_size, blocks in self._tables.tables(scheduler.kv_cache_manager, request.request_id):
                evict.update(b.block_id for b in blocks[confirmed // block_size :] if not b.is_null)
        scheduler.kv_cache_manager.evict_blocks(evict)
        self._steps.create(self.resume).release(self.engine, requests)
