# Intended: buggy: the dirty block ids come from a lazy generator that is first consumed after finish_requests has freed the requests, when their req_to_blocks entries are already gone, so nothing is evicted.
# Idioms: generator pipeline (yield from) in a helper module, tuple snapshot of the running queue, set built from a generator, walrus.
"""Abort every running request, evicting the unconfirmed tail of each."""

from __future__ import annotations

from typing import Any

from vllm.v1.request import RequestStatus

from tails import all_tails


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        victims = tuple(sched.running)
        dirty = all_tails(kv.coordinator.single_type_managers, victims)  # lazy: nothing read yet
        aborted = sched.finish_requests([v.request_id for v in victims], RequestStatus.FINISHED_ABORTED)
        if ids := set(dirty):
            kv.evict_blocks(ids)
        self.engine._send_abort_outputs(aborted)
