# Intended: buggy: only the resume branch of the machine passes through the tail-eviction state; the abort branch goes straight from triage to aborting, so on abort the blocks cached by the failed step stay in the prefix cache for any later request with the same prefix.
# Idioms: event-driven machine (events pushed onto a queue, a (state, event) -> next-state table, per-state entry callbacks), string states and events, an event counter against loops.
# switch: resume_on_fault
"""Event-driven recovery.  Aborted requests never run again, so only requests
that resume need their cached tail dropped."""

from __future__ import annotations

import queue
import time

from vllm.v1.request import RequestStatus

TABLE = {
    ("idle", "fault"): "triage",
    ("triage", "resume"): "scrub",
    ("triage", "abort"): "aborting",
    ("scrub", "scrubbed"): "requeueing",
    ("aborting", "aborted"): "finished",
    ("requeueing", "requeued"): "finished",
}


class FaultHandler:
    resume_on_fault = False
    max_events = 12

    def __init__(self, engine):
        self.engine = engine
        self.state = "idle"
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        self.requests: list = []
        self.on_enter = {
            "triage": self._triage,
            "scrub": self._scrub,
            "aborting": self._aborting,
            "requeueing": self._requeueing,
        }

    def on_fault(self, exc):
        self.state = "idle"
        self.requests = []
        self.events.put("fault")
        seen = 0
        while not self.events.empty():
            seen += 1
            if seen > self.max_events:
                raise RuntimeError("recovery event storm") from exc
            event = self.events.get()
            nxt = TABLE.get((self.state, event))
            if nxt is None:
                raise RuntimeError(f"unexpected {event!r} in {self.state!r}") from exc
            self.state = nxt
            callback = self.on_enter.get(nxt)
            if callback:
                callback()
        return self.state

    def _triage(self):
        self.requests = list(self.engine.scheduler.running)
        self.events.put("resume" if self.resume_on_fault else "abort")

    def _scrub(self):
        kv = self.engine.scheduler.kv_cache_manager
        dirty = set()
        for req in self.requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                dirty.update(b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null)
        if dirty:
            kv.evict_blocks(dirty)
        self.events.put("scrubbed")

    def _aborting(self):
        sched = self.engine.scheduler
        aborted = sched.finish_requests([r.request_id for r in self.requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        self.events.put("aborted")

    def _requeueing(self):
        sched = self.engine.scheduler
        ts = time.monotonic()
        for req in reversed(self.requests):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        self.events.put("requeued")
