# Intended: buggy: it walks the scheduler's running list while each request's machine removes that request from the same list, so every other request is skipped and keeps its unconfirmed tail cached (and is never requeued).
# Idioms: one state machine object per request built on the fly, string state constants, a dict of state -> step method, guard conditions (only RUNNING requests are requeued), a per-machine step limit, the machine as its own context.
"""Resume-on-fault: each running request runs its own small recovery machine."""

from __future__ import annotations

import logging
import time

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)

S_NEW = "new"
S_CLEAN = "clean"
S_WAITING = "waiting"
S_READY = "ready"
S_SKIPPED = "skipped"


class RequestMachine:
    LIMIT = 8

    def __init__(self, scheduler, request, timestamp):
        self.scheduler = scheduler
        self.request = request
        self.timestamp = timestamp
        self.state = S_NEW
        self.steps = {
            S_NEW: self.evict_tail,
            S_CLEAN: self.requeue,
            S_WAITING: self.clear_counters,
        }

    def run(self) -> str:
        for _ in range(self.LIMIT):
            step = self.steps.get(self.state)
            if step is None:
                return self.state
            self.state = step()
        raise RuntimeError(f"{self.request.request_id}: machine stuck in {self.state}")

    def evict_tail(self) -> str:
        req = self.request
        kv = self.scheduler.kv_cache_manager
        upto = req.num_computed_tokens - req.num_in_flight_tokens
        ids = set()
        for mgr in kv.coordinator.single_type_managers:
            for blk in mgr.req_to_blocks.get(req.request_id, [])[upto // mgr.block_size:]:
                if not blk.is_null:
                    ids.add(blk.block_id)
        if ids:
            kv.evict_blocks(ids)
        return S_CLEAN

    def requeue(self) -> str:
        if self.request.status != RequestStatus.RUNNING:
            return S_SKIPPED
        self.scheduler.running.remove(self.request)
        self.scheduler._preempt_request(self.request, self.timestamp)
        return S_WAITING

    def clear_counters(self) -> str:
        self.request.num_in_flight_tokens = 0
        self.request.num_stale_output_tokens = 0
        return S_READY


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.outcomes: dict[str, str] = {}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        now = time.monotonic()
        self.outcomes = {}
        for req in sched.running:
            self.outcomes[req.request_id] = RequestMachine(sched, req, now).run()
        log.info("fault recovery outcomes: %s", self.outcomes)
