# Intended: correct.
# Idioms: iterable stage classes with __iter__ generators composed by nesting, yield from for delegation per request and per KV-cache group, a dataclass record; the sink drains the chain into a set, evicts, then aborts.
"""Abort-on-fault handler over composable iterable stages (see stages.py)."""

from __future__ import annotations

from stages import Requests, UnconfirmedTails
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        requests = Requests(scheduler)
        tails = UnconfirmedTails(requests, kv.coordinator.single_type_managers)

        doomed = {tail.block_id for tail in tails}
        if doomed:
            kv.evict_blocks(doomed)

        aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
