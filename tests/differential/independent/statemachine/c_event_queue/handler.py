# Intended: correct.
# Idioms: event-driven machine, a deque of events, a (state, event) -> (next state, action) table, actions post follow-up events, string state constants, an event budget against loops.
# switch: RESUME
"""Event-driven fault recovery.

The fault posts FAULT; each action posts the event that moves the machine on.
"""

from __future__ import annotations

import collections
import time

from vllm.v1.request import RequestStatus

# states
HEALTHY = "HEALTHY"
FAULTED = "FAULTED"
QUARANTINED = "QUARANTINED"
RECOVERED = "RECOVERED"

# events
FAULT = "FAULT"
TAILS_EVICTED = "TAILS_EVICTED"
REQUESTS_ABORTED = "REQUESTS_ABORTED"
REQUESTS_REQUEUED = "REQUESTS_REQUEUED"


class FaultHandler:
    RESUME = False
    EVENT_BUDGET = 16

    def __init__(self, engine):
        self.engine = engine
        self.state = HEALTHY
        self._events: collections.deque = collections.deque()
        self._victims: list = []
        self._table = {
            (HEALTHY, FAULT): (FAULTED, self._quarantine_kv),
            (FAULTED, TAILS_EVICTED): (QUARANTINED, self._release),
            (QUARANTINED, REQUESTS_ABORTED): (RECOVERED, None),
            (QUARANTINED, REQUESTS_REQUEUED): (RECOVERED, None),
        }

    def post(self, event: str) -> None:
        self._events.append(event)

    def on_fault(self, exc):
        self.state = HEALTHY
        self._victims = list(self.engine.scheduler.running)
        self.post(FAULT)
        handled = 0
        while self._events:
            handled += 1
            if handled > self.EVENT_BUDGET:
                raise RuntimeError("recovery event loop did not drain") from exc
            event = self._events.popleft()
            try:
                target, action = self._table[(self.state, event)]
            except KeyError:
                raise RuntimeError(f"event {event} not allowed in state {self.state}") from exc
            self.state = target
            if action is not None:
                action()
        # Ready for the next fault.
        self.state = HEALTHY

    # -- actions -------------------------------------------------------------

    def _quarantine_kv(self) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        suspect: set[int] = set()
        for req in self._victims:
            good = req.num_computed_tokens - req.num_in_flight_tokens
            for grp in kv.coordinator.single_type_managers:
                blocks = grp.req_to_blocks.get(req.request_id, [])
                suspect.update(
                    blk.block_id for blk in blocks[good // grp.block_size:] if not blk.is_null
                )
        kv.evict_blocks(suspect)
        self.post(TAILS_EVICTED)

    def _release(self) -> None:
        sched = self.engine.scheduler
        if not self.RESUME:
            gone = sched.finish_requests(
                [r.request_id for r in self._victims], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(gone)
            self.post(REQUESTS_ABORTED)
            return
        ts = time.monotonic()
        for req in reversed(self._victims):
            sched.running.remove(req)
            # Zero the in-flight count first: the preempt copies it into the
            # stale-output counter, and the lost step has no output to drain.
            req.num_in_flight_tokens = 0
            sched._preempt_request(req, ts)
        self.post(REQUESTS_REQUEUED)
