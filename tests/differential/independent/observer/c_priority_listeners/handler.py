# Intended: correct.
# Idioms: @listens(event, priority=N) method decorators collected by __init_subclass__ into a per-class listener table, dispatch in priority order, a dataclass event.
# switch: RESUME_ON_FAULT
"""Fault handler whose steps are prioritised listeners of one ``fault`` event.

Priority 100 collects the unconfirmed tail, 90 evicts it, 10 retires the
requests (abort or requeue), 0 notifies the frontend.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from vllm.v1.request import RequestStatus

from listen_registry import ListenerHost, listens


@dataclass
class Fault:
    exc: BaseException
    running: list
    block_ids: set = field(default_factory=set)
    aborted: list = field(default_factory=list)


class FaultHandler(ListenerHost):
    RESUME_ON_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    @listens("fault", priority=100)
    def collect_tail(self, fault: Fault) -> None:
        managers = self.scheduler.kv_cache_manager.coordinator.single_type_managers
        for req in fault.running:
            first_unconfirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in managers:
                blocks = mgr.req_to_blocks.get(req.request_id) or []
                lo = first_unconfirmed // mgr.block_size
                fault.block_ids.update(b.block_id for b in blocks[lo:] if not b.is_null)

    @listens("fault", priority=90)
    def evict_tail(self, fault: Fault) -> None:
        if fault.block_ids:
            self.scheduler.kv_cache_manager.evict_blocks(fault.block_ids)

    @listens("fault", priority=10)
    def retire(self, fault: Fault) -> None:
        sched = self.scheduler
        if not self.RESUME_ON_FAULT:
            fault.aborted = sched.finish_requests(
                [r.request_id for r in fault.running], RequestStatus.FINISHED_ABORTED
            )
            return
        t = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, t)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

    @listens("fault", priority=0)
    def notify(self, fault: Fault) -> None:
        if fault.aborted:
            self.engine._send_abort_outputs(fault.aborted)

    def on_fault(self, exc):
        self.dispatch("fault", Fault(exc, list(self.scheduler.running)))
