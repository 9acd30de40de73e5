# Intended: buggy: on resume it clears num_stale_output_tokens after the preempt but leaves num_in_flight_tokens set, so the requeued request's confirmed boundary is off by the lost step.
# Idioms: frozen slots dataclass counter snapshot matched with class patterns and guards, cached_property for the managers, walrus, abort/resume switch.
# switch: RESUME
"""Evict the unconfirmed KV tail, then abort or resume."""

from __future__ import annotations

import time
from functools import cached_property
from typing import Any

from vllm.v1.request import RequestStatus

from counters import clear_stale


class FaultHandler:
    RESUME: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @cached_property
    def managers(self) -> list[Any]:
        return list(self.engine.scheduler.kv_cache_manager.coordinator.single_type_managers)

    def _dirty(self, req: Any) -> set[int]:
        confirmed = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
        return {
            b.block_id
            for m in self.managers
            for b in m.req_to_blocks.get(req.request_id, [])[confirmed // m.block_size :]
            if not b.is_null
        }

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if dirty := set().union(*(self._dirty(r) for r in reqs)):
            sched.kv_cache_manager.evict_blocks(dirty)
        if not self.RESUME:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
            )
            return
        ts = time.monotonic()
        for r in reversed(reqs):
            sched.running.remove(r)
            sched._preempt_request(r, ts)
            clear_stale(r)
