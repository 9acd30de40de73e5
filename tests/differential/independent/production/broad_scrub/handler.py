# Intended: buggy: it evicts every block covering the request's computed tokens (get_block_ids_for_computed_tokens from token 0) instead of only the unconfirmed tail, so the clean prefix written by earlier successful steps is thrown out of the prefix cache and the resumed request recomputes it.
# Block ids of all KV-cache groups are flattened with itertools.chain.from_iterable inside a Scrubber helper; functools.singledispatchmethod on Abort/Requeue marker dataclasses picks abort vs resume.
# switch: resume_mode
from __future__ import annotations

import functools
import logging
import time
from typing import Any

from scrubber import Abort, Requeue, Scrubber
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    resume_mode: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        scrubber = Scrubber(self.scheduler.kv_cache_manager)
        for request in self.scheduler.running:
            scrubber.scrub(request)
        logger.warning(f"{exc!r}: scrubbed {scrubber.count} blocks")
        self._recover(Requeue(time.monotonic()) if self.resume_mode else Abort())

    @functools.singledispatchmethod
    def _recover(self, how: Any) -> None:
        raise NotImplementedError(type(how).__name__)

    @_recover.register(Abort)
    def _(self, how: Abort) -> None:
        self.engine._send_abort_outputs(self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    @_recover.register(Requeue)
    def _(self, how: Requeue) -> None:
        batch, self.scheduler.running = self.scheduler.running, []
        for request in reversed(batch):
            self.scheduler._preempt_request(request, how.timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
