# Intended: correct.
# Idioms: functools.singledispatch on the KV-cache manager type (generic base plus a sliding-window overload), operator.attrgetter to reach the managers.
"""Abort-only fault handler; per-group tail selection is dispatched on type."""

from __future__ import annotations

from operator import attrgetter

from vllm.v1.request import RequestStatus

from group_tails import tail_blocks

_groups = attrgetter("kv_cache_manager.coordinator.single_type_managers")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        stale = set()
        for request in running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in _groups(scheduler):
                stale |= tail_blocks(manager, request.request_id, confirmed)
        if stale:
            scheduler.kv_cache_manager.evict_blocks(stale)
        if running:
            done = scheduler.finish_requests(
                [r.request_id for r in running], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(done)
