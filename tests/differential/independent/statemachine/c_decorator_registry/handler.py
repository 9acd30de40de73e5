# Intended: correct.
# Idioms: decorator-registered state handlers collected into a table by a base class (helper module), string state names, handlers return the next state's name, a transition cap in the run loop, instance attributes as the carried context.
# switch: requeue_on_fault
"""Fault handler built on ``statekit``: drop the unconfirmed KV tail of each
running request, then abort or requeue it."""

from __future__ import annotations

import time

from statekit import StateMachine, state
from vllm.v1.request import RequestStatus


class FaultHandler(StateMachine):
    requeue_on_fault = False

    def __init__(self, engine):
        self.engine = engine
        self._reqs: list = []
        self._tails: dict[str, set[int]] = {}

    def on_fault(self, exc):
        self._reqs = []
        self._tails = {}
        return self.run_machine()

    @property
    def _sched(self):
        return self.engine.scheduler

    @state("inventory", initial=True)
    def _inventory(self):
        self._reqs = list(self._sched.running)
        return "locate_tails" if self._reqs else self.FINAL

    @state("locate_tails")
    def _locate_tails(self):
        coordinator = self._sched.kv_cache_manager.coordinator
        for req in self._reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids = self._tails.setdefault(req.request_id, set())
            for mgr in coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                ids.update(
                    b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null
                )
        return "evict_tails"

    @state("evict_tails")
    def _evict_tails(self):
        doomed = set().union(*self._tails.values())
        if doomed:
            self._sched.kv_cache_manager.evict_blocks(doomed)
        return "requeue" if self.requeue_on_fault else "abort"

    @state("abort")
    def _abort(self):
        aborted = self._sched.finish_requests(
            [r.request_id for r in self._reqs], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
        return self.FINAL

    @state("requeue")
    def _requeue(self):
        sched = self._sched
        now = time.monotonic()
        for req in reversed(self._reqs):
            sched.running.remove(req)
            sched._preempt_request(req, now)
        return "reset_counters"

    @state("reset_counters")
    def _reset_counters(self):
        for req in self._reqs:
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        return self.FINAL
