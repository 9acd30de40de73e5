# Intended: correct.
# Idioms: one small state machine per request (string state constants, dict of state -> step method), a driver that advances every machine round-robin until all are final, a round limit against runaway loops.
# switch: resume_requests
"""Per-request fault recovery.

Each running request gets its own ``RequestRecovery`` machine:

    PENDING --evict tail--> TAIL_DROPPED --abort--> ABORTED
                                         --preempt--> REQUEUED --clear counters--> READY
"""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

PENDING = "pending"
TAIL_DROPPED = "tail_dropped"
REQUEUED = "requeued"
READY = "ready"
ABORTED = "aborted"

TERMINAL = (READY, ABORTED)


class RequestRecovery:
    """Recovery of one request; ``advance()`` performs exactly one transition."""

    def __init__(self, owner, request, resume: bool):
        self.owner = owner
        self.request = request
        self.resume = resume
        self.state = PENDING
        self._steps = {
            PENDING: self._drop_tail,
            TAIL_DROPPED: self._requeue if resume else self._abort,
            REQUEUED: self._clear_counters,
        }

    @property
    def done(self) -> bool:
        return self.state in TERMINAL

    def advance(self) -> None:
        self.state = self._steps[self.state]()

    def _drop_tail(self) -> str:
        req = self.request
        kv = self.owner.scheduler.kv_cache_manager
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        dirty = set()
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, ())
            for idx in range(confirmed // mgr.block_size, len(blocks)):
                if not blocks[idx].is_null:
                    dirty.add(blocks[idx].block_id)
        if dirty:
            kv.evict_blocks(dirty)
        return TAIL_DROPPED

    def _abort(self) -> str:
        finished = self.owner.scheduler.finish_requests(
            self.request.request_id, RequestStatus.FINISHED_ABORTED
        )
        self.owner.aborted.extend(finished)
        return ABORTED

    def _requeue(self) -> str:
        sched = self.owner.scheduler
        sched.running.remove(self.request)
        sched._preempt_request(self.request, self.owner.timestamp)
        return REQUEUED

    def _clear_counters(self) -> str:
        # The lost step will never report back; don't wait for its output.
        self.request.num_in_flight_tokens = 0
        self.request.num_stale_output_tokens = 0
        return READY


class FaultHandler:
    resume_requests = False
    max_rounds = 8

    def __init__(self, engine):
        self.engine = engine
        self.aborted = []
        self.timestamp = 0.0

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc):
        self.aborted = []
        self.timestamp = time.monotonic()
        # Newest first, so preempted requests land in the waiting queue in FIFO order.
        machines = [
            RequestRecovery(self, req, self.resume_requests)
            for req in reversed(list(self.scheduler.running))
        ]
        rounds = 0
        while not all(m.done for m in machines):
            rounds += 1
            if rounds > self.max_rounds:
                stuck = {m.request.request_id: m.state for m in machines if not m.done}
                raise RuntimeError(f"request recovery did not finish: {stuck}")
            for m in machines:
                if not m.done:
                    m.advance()
        if self.aborted:
            self.engine._send_abort_outputs(self.aborted)
