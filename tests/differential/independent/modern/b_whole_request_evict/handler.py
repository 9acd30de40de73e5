# Intended: buggy: it evicts every block the request holds instead of only the unconfirmed tail, so the clean prefix written by steps that succeeded is dropped from the prefix cache and recomputed.
# Idioms: frozen slots dataclass holdings yielded by a generator, match with class patterns and captures, walrus, abort/resume switch, typing.Final.
# switch: resume
"""A fault may have corrupted what the requests hold: drop it from the prefix cache, then abort or resume."""

from __future__ import annotations

import time
from typing import Any, Final

from vllm.v1.request import RequestStatus

from holdings import Holding, holdings

ABORT_STATUS: Final = RequestStatus.FINISHED_ABORTED


class FaultHandler:
    resume: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        requests = list(sched.running)
        suspect: set[int] = set()
        for req in requests:
            if req.num_in_flight_tokens <= 0:
                continue
            for holding in holdings(kv, req.request_id):
                match holding:
                    case Holding(block_ids=ids):
                        suspect.update(ids)
        kv.evict_blocks(suspect)
        if self.resume:
            now = time.monotonic()
            for req in reversed(requests):
                sched.running.remove(req)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        elif aborted := sched.finish_requests([r.request_id for r in requests], ABORT_STATUS):
            self.engine._send_abort_outputs(aborted)
