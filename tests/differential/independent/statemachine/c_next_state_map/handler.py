# Intended: correct.
# Idioms: a pure next-state map (dict of state -> next state), per-state work looked up by name (getattr on "_do_<state>"), string states, the handler itself as the context, a loop bounded by the table's length.
"""Resume-on-fault recovery: every running request goes back to waiting and
recomputes only its unconfirmed tail."""

from __future__ import annotations

import logging
import time

log = logging.getLogger(__name__)

NEXT_STATE = {
    "start": "snapshot",
    "snapshot": "invalidate",
    "invalidate": "requeue",
    "requeue": "settle",
    "settle": "end",
}


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self._batch = []
        self._invalid: set[int] = set()
        self._stamp = 0.0

    def on_fault(self, exc):
        state = "start"
        # A straight-line machine never needs more steps than it has states.
        for _ in range(len(NEXT_STATE) + 1):
            if state == "end":
                break
            work = getattr(self, f"_do_{state}", None)
            if work is not None:
                work()
            state = NEXT_STATE[state]
        else:
            raise RuntimeError(f"recovery machine stuck in {state!r}") from exc
        log.info("requeued %d request(s) after %r", len(self._batch), exc)

    def _do_snapshot(self):
        self._batch = list(self.engine.scheduler.running)
        self._invalid = set()
        self._stamp = time.monotonic()

    def _do_invalidate(self):
        kv = self.engine.scheduler.kv_cache_manager
        for req in self._batch:
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            for single in kv.coordinator.single_type_managers:
                held = single.req_to_blocks.get(req.request_id)
                if not held:
                    continue
                for blk in held[boundary // single.block_size:]:
                    if not blk.is_null:
                        self._invalid.add(blk.block_id)
        if self._invalid:
            kv.evict_blocks(self._invalid)

    def _do_requeue(self):
        sched = self.engine.scheduler
        for req in reversed(self._batch):
            sched.running.remove(req)
            sched._preempt_request(req, self._stamp)

    def _do_settle(self):
        for req in self._batch:
            # No output of the failed step will ever arrive.
            req.num_stale_output_tokens = 0
            req.num_in_flight_tokens = 0
