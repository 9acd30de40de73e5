# Intended: correct.
# Idioms: pre-release hook list of callbacks bound with functools.partial, abort/resume switch, hooks run in registration order.
# switch: resume_on_fault
"""Run pre-release hooks (tail eviction) on each request, then abort or resume."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from vllm.v1.request import RequestStatus

Hook = Callable[[object], None]


def _evict_group_tail(kv, manager, request) -> None:
    first = (request.num_computed_tokens - request.num_in_flight_tokens) // manager.block_size
    ids = {blk.block_id for blk in manager.req_to_blocks[request.request_id][first:]}
    if ids:
        kv.evict_blocks(ids)


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self._before_release: list[Hook] = []
        kv = engine.scheduler.kv_cache_manager
        for manager in kv.coordinator.single_type_managers:
            self.add_hook(partial(_evict_group_tail, kv, manager))

    def add_hook(self, hook: Hook) -> None:
        self._before_release.append(hook)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        for request in scheduler.running:
            for hook in self._before_release:
                hook(request)
        if not self.resume_on_fault:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        requests = scheduler.running[:]
        del scheduler.running[:]
        now = time.monotonic()
        for request in requests:
            scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
