# Intended: correct.
# Idioms: operator.attrgetter for request and scheduler fields, operator.methodcaller for the scheduler calls, path methods looked up with getattr on an f-string name.
# switch: RESUME
"""Fault handler: drop the unconfirmed KV tail from the prefix cache, then abort
every running request or send it back to waiting."""

from __future__ import annotations

import operator
import time

from vllm.v1.request import RequestStatus

_tail_fields = operator.attrgetter("request_id", "num_computed_tokens", "num_in_flight_tokens")
_managers_of = operator.attrgetter("kv_cache_manager.coordinator.single_type_managers")
_block_id = operator.attrgetter("block_id")
_is_null = operator.attrgetter("is_null")
_request_id = operator.attrgetter("request_id")
_LOST_STEP_COUNTERS = ("num_in_flight_tokens", "num_stale_output_tokens")


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        victims = list(scheduler.running)
        if not victims:
            return
        self._evict_tails(scheduler, victims)
        path = "resume" if self.RESUME else "abort"
        getattr(self, f"_{path}")(scheduler, victims)

    @staticmethod
    def _evict_tails(scheduler, requests):
        doomed = set()
        for manager in _managers_of(scheduler):
            size = manager.block_size
            for rid, computed, in_flight in map(_tail_fields, requests):
                first = (computed - in_flight) // size
                held = manager.req_to_blocks.get(rid, ())
                doomed.update(map(_block_id, (b for b in held[first:] if not _is_null(b))))
        if doomed:
            operator.methodcaller("evict_blocks", doomed)(scheduler.kv_cache_manager)

    def _abort(self, scheduler, requests):
        finish = operator.methodcaller(
            "finish_requests", list(map(_request_id, requests)), RequestStatus.FINISHED_ABORTED
        )
        aborted = finish(scheduler)
        notify = getattr(self.engine, "_send_abort_outputs", None)
        if aborted and callable(notify):
            notify(aborted)

    def _resume(self, scheduler, requests):
        stamp = time.monotonic()
        for request in reversed(requests):
            scheduler.running.remove(request)
            operator.methodcaller("_preempt_request", request, stamp)(scheduler)
            for counter in _LOST_STEP_COUNTERS:
                setattr(request, counter, 0)
