# Intended: correct.
# Idioms: template method (an abstract base class fixes the order select -> quarantine -> dispose, subclasses fill in the steps), typing.Protocol for the collaborator that reads block tables, resume-only (preempt back to waiting).
"""Resume-on-fault handler: a concrete subclass of the recovery template."""

from __future__ import annotations

import time

from recovery_template import AbstractRecoveryProcedure
from block_tables import BlockTableReader, CoordinatorBlockTables


class FaultHandler(AbstractRecoveryProcedure):
    """Preempts every running request so it re-hits its clean prefix after recovery."""

    def __init__(self, engine, tables: BlockTableReader | None = None) -> None:
        super().__init__(engine)
        self._tables = tables or CoordinatorBlockTables(engine.scheduler.kv_cache_manager)

    def select(self):
        return list(self.scheduler.running)

    def quarantine(self, requests) -> None:
        stale: set[int] = set()
        for request in requests:
            boundary = request.num_computed_tokens - request.num_in_flight_tokens
            for block_size, table in self._tables.tables_for(request.request_id):
                stale.update(b.block_id for b in table[boundary // block_size :] if not b.is_null)
        self.scheduler.kv_cache_manager.evict_blocks(stale)

    def dispose(self, requests) -> None:
        when = time.monotonic()
        for request in reversed(requests):
            self.scheduler.running.remove(request)
            # Clear the lost step's accounting first: the preemption copies
            # num_in_flight_tokens into num_stale_output_tokens.
            request.num_in_flight_tokens = 0
            self.scheduler._preempt_request(request, when)
