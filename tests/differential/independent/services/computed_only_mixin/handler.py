# Intended: buggy: the tail starts at num_computed_tokens // block_size, ignoring the tokens still in flight, so the block the failed step filled stays cached.
# Idioms: mixin class with a cached_property per-group table, method resolution through a mixin, resume-only path.
"""Resume handler: preempt every running request after trimming its KV tail."""

from __future__ import annotations

import time
from functools import cached_property


class KVGroupsMixin:
    engine: object

    @cached_property
    def kv(self):
        return self.engine.scheduler.kv_cache_manager

    @cached_property
    def groups(self) -> tuple:
        return tuple(self.kv.coordinator.single_type_managers)

    def tail_ids(self, request) -> set[int]:
        ids: set[int] = set()
        for group in self.groups:
            start = request.num_computed_tokens // group.block_size
            ids.update(b.block_id for b in group.req_to_blocks[request.request_id][start:])
        return ids


class FaultHandler(KVGroupsMixin):
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        victims, sched.running = list(sched.running), []
        when = time.monotonic()
        for req in victims:
            self.kv.evict_blocks(self.tail_ids(req))
            sched._preempt_request(req, when)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
