# Intended: buggy: the unconfirmed tail is evicted only on the resume path; the abort path frees the requests with their dirty blocks still hashed, so a later request with the same prefix reuses KV that was never computed.
# Idioms: enum.Enum outcomes recorded in a kw_only slots dataclass, match on (flag, outcome) tuples, walrus, keyword-only helpers, abort/resume switch.
# switch: RESUME_ON_FAULT
"""Abort or resume on fault; a resumed request must not re-hit its own dirty tail."""

from __future__ import annotations

import time
from typing import Any

from vllm.v1.request import RequestStatus

from outcome import FaultLog, Outcome


class FaultHandler:
    RESUME_ON_FAULT: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.last: FaultLog | None = None

    def _evict_tails(self, requests: list[Any], *, log: FaultLog) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        ids: set[int] = set()
        for req in requests:
            confirmed = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
            for mgr in kv.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size :] if not b.is_null)
        kv.evict_blocks(ids)
        log.evicted = len(ids)

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        requests = list(sched.running)
        outcome = Outcome.REQUEUED if self.RESUME_ON_FAULT else Outcome.ABORTED
        log = FaultLog(outcome=outcome, request_ids=[r.request_id for r in requests])
        match outcome:
            case Outcome.REQUEUED:
                # Resumed requests would hit their own tail again: evict it first.
                self._evict_tails(requests, log=log)
                stamp = time.monotonic()
                for req in reversed(requests):
                    sched.running.remove(req)
                    sched._preempt_request(req, stamp)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
            case Outcome.ABORTED:
                if aborted := sched.finish_requests(log.request_ids, RequestStatus.FINISHED_ABORTED):
                    self.engine._send_abort_outputs(aborted)
        self.last = log
