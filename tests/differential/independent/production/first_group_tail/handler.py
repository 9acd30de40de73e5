# Intended: buggy: the tail is taken from get_blocks(request_id).blocks[0] only, i.e. the first KV-cache group, so with a hybrid model (full + sliding-window attention) the second group's dirty tail blocks keep their prefix-cache hashes.
# A for_each_request(fn) visitor drives a TailEvictor whose properties expose the scheduler and the KV manager; the boundary arithmetic is right, the group coverage is not.
# switch: resume
from __future__ import annotations

import logging
import time
from typing import Any

from evict_helpers import TailEvictor, for_each_request
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.resume = False

    def on_fault(self, exc: BaseException) -> None:
        evictor = TailEvictor(self.engine)
        for_each_request(evictor.scheduler.running, evictor.evict_tail)
        logger.warning(f"fault {exc!r}: {evictor.evicted} unconfirmed blocks evicted")
        scheduler = evictor.scheduler
        if not self.resume:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        now = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
