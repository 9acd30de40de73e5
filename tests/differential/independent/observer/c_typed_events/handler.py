# Intended: correct.
# Idioms: typed event dataclasses (FaultRaised -> TailResolved -> TailEvicted) dispatched by type, listeners returning follow-up events, listeners registered with a decorator in __init__.
# switch: RESUME
"""A chain of typed events.

``FaultRaised`` yields one ``TailResolved`` per request (its tail block ids
across groups); eviction answers each with ``TailEvicted``; once every request
is evicted the retire step runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from vllm.v1.request import RequestStatus

from ft_dispatch import Dispatcher


@dataclass(frozen=True)
class FaultRaised:
    exc: BaseException
    requests: tuple


@dataclass(frozen=True)
class TailResolved:
    request: object
    block_ids: frozenset


@dataclass(frozen=True)
class TailEvicted:
    request: object


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine
        self.events = Dispatcher()
        self._pending = set()
        reg = self.events.register

        @reg(FaultRaised)
        def resolve(ev: FaultRaised):
            coordinator = self.engine.scheduler.kv_cache_manager.coordinator
            out = []
            for req in ev.requests:
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                ids = set()
                for mgr in coordinator.single_type_managers:
                    held = mgr.req_to_blocks.get(req.request_id) or []
                    for pos in range(confirmed // mgr.block_size, len(held)):
                        if not held[pos].is_null:
                            ids.add(held[pos].block_id)
                self._pending.add(req.request_id)
                out.append(TailResolved(req, frozenset(ids)))
            return out

        @reg(TailResolved)
        def evict(ev: TailResolved):
            if ev.block_ids:
                self.engine.scheduler.kv_cache_manager.evict_blocks(set(ev.block_ids))
            return TailEvicted(ev.request)

        @reg(TailEvicted)
        def retire_when_all_clean(ev: TailEvicted):
            self._pending.discard(ev.request.request_id)
            if not self._pending:
                self._retire()

    def _retire(self):
        sched = self.engine.scheduler
        if self.RESUME:
            ts = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)

    def on_fault(self, exc):
        running = tuple(self.engine.scheduler.running)
        if not running:
            self._retire()
            return
        self.events.dispatch(FaultRaised(exc, running))
