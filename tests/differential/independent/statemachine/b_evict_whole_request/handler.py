# Intended: buggy: it evicts every block each running request holds from the prefix cache, including the clean prefix computed by steps that succeeded, so a resumed request (or any request sharing the prefix) recomputes KV that was valid.
# Idioms: separate tables for actions (state -> callable) and transitions (state -> next state, or a chooser callable for branching states), str-valued Enum states, a dataclass context, a visited-state counter that stops loops.
# switch: RESUME
"""Table-driven fault recovery: invalidate the faulted requests' KV, then abort or requeue."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum

from vllm.v1.request import RequestStatus


class St(str, Enum):
    BEGIN = "begin"
    INVALIDATE = "invalidate"
    ABORT = "abort"
    REQUEUE = "requeue"
    END = "end"


@dataclass
class Job:
    requests: list
    resume: bool
    invalidated: set[int] = field(default_factory=set)
    aborted: list = field(default_factory=list)


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine
        self.actions = {
            St.BEGIN: lambda job: None,
            St.INVALIDATE: self._invalidate,
            St.ABORT: self._abort,
            St.REQUEUE: self._requeue,
        }
        self.transitions = {
            St.BEGIN: St.INVALIDATE,
            St.INVALIDATE: lambda job: St.REQUEUE if job.resume else St.ABORT,
            St.ABORT: St.END,
            St.REQUEUE: St.END,
        }

    def on_fault(self, exc):
        job = Job(requests=list(self.engine.scheduler.running), resume=self.RESUME)
        visits: Counter = Counter()
        state = St.BEGIN
        while state is not St.END:
            visits[state] += 1
            if visits[state] > 1:
                raise RuntimeError(f"recovery revisited {state.value}: {dict(visits)}") from exc
            self.actions[state](job)
            nxt = self.transitions[state]
            state = nxt(job) if callable(nxt) else nxt
        return job

    def _invalidate(self, job: Job) -> None:
        # Whatever the failed step touched can't be trusted: drop the request's
        # blocks from the prefix cache in every KV-cache group.
        kv = self.engine.scheduler.kv_cache_manager
        for req in job.requests:
            for mgr in kv.coordinator.single_type_managers:
                for blk in mgr.req_to_blocks.get(req.request_id, []):
                    if not blk.is_null:
                        job.invalidated.add(blk.block_id)
        if job.invalidated:
            kv.evict_blocks(job.invalidated)

    def _abort(self, job: Job) -> None:
        job.aborted = self.engine.scheduler.finish_requests(
            [r.request_id for r in job.requests], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(job.aborted)

    def _requeue(self, job: Job) -> None:
        sched = self.engine.scheduler
        now = time.monotonic()
        for req in reversed(job.requests):
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
