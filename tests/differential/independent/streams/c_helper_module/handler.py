# Intended: correct.
# Idioms: a helper module of small lazy generator functions composed with yield from and generator expressions; the handler drains them into a frozenset, evicts, then preempts every running request back to waiting (resume only).
"""Resume-on-fault: keep every running request, recompute only its tail."""

from __future__ import annotations

import time

from tailflow import unconfirmed_block_ids


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        running = tuple(scheduler.running)

        dirty = frozenset(unconfirmed_block_ids(running, kv.coordinator.single_type_managers))
        kv.evict_blocks(set(dirty))

        stamp = time.monotonic()
        for request in reversed(running):
            scheduler.running.remove(request)
            # The failed step's frame never arrives: forget it before the
            # preempt copies it into the stale-output counter.
            request.num_in_flight_tokens = 0
            scheduler._preempt_request(request, stamp)
