# Intended: correct.
# Idioms: Enum states, dict transition table of state -> handler method (each returns the next state), run loop until a final state with a step counter, dataclass context carried between states.
# switch: RESUME_ON_FAULT
"""Fault recovery as a small explicit state machine.

COLLECT -> EVICT_TAILS -> (ABORT | PREEMPT) -> DONE

The unconfirmed tail of every running request (tokens scheduled by the step
that failed) is dropped from the prefix cache in EVICT_TAILS, before any
state that frees blocks.
"""

from __future__ import annotations

import enum
import logging
import time
from dataclasses import dataclass, field

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class RecoveryState(enum.Enum):
    COLLECT = "collect"
    EVICT_TAILS = "evict_tails"
    ABORT = "abort"
    PREEMPT = "preempt"
    DONE = "done"
    FAILED = "failed"


FINAL_STATES = frozenset({RecoveryState.DONE, RecoveryState.FAILED})


@dataclass
class RecoveryContext:
    exc: BaseException
    requests: list = field(default_factory=list)
    evicted: set[int] = field(default_factory=set)
    aborted: list = field(default_factory=list)
    preempted: list[str] = field(default_factory=list)


class FaultHandler:
    RESUME_ON_FAULT = False
    MAX_STEPS = 16

    def __init__(self, engine):
        self.engine = engine
        self._table = {
            RecoveryState.COLLECT: self._collect,
            RecoveryState.EVICT_TAILS: self._evict_tails,
            RecoveryState.ABORT: self._abort,
            RecoveryState.PREEMPT: self._preempt,
        }

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc):
        ctx = RecoveryContext(exc=exc)
        state = RecoveryState.COLLECT
        steps = 0
        while state not in FINAL_STATES:
            steps += 1
            if steps > self.MAX_STEPS:
                raise RuntimeError(f"fault recovery did not settle (stuck in {state.name})")
            logger.debug("recovery step %d: %s", steps, state.name)
            state = self._table[state](ctx)
        if state is RecoveryState.FAILED:
            logger.error("fault recovery failed for %r", exc)
        return ctx

    # -- states ------------------------------------------------------------

    def _collect(self, ctx: RecoveryContext) -> RecoveryState:
        ctx.requests = list(self.scheduler.running)
        return RecoveryState.EVICT_TAILS

    def _evict_tails(self, ctx: RecoveryContext) -> RecoveryState:
        kv = self.scheduler.kv_cache_manager
        for req in ctx.requests:
            confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
            for manager in kv.coordinator.single_type_managers:
                blocks = manager.req_to_blocks.get(req.request_id, [])
                first = confirmed // manager.block_size
                ctx.evicted.update(b.block_id for b in blocks[first:] if not b.is_null)
        if ctx.evicted:
            kv.evict_blocks(set(ctx.evicted))
        return RecoveryState.PREEMPT if self.RESUME_ON_FAULT else RecoveryState.ABORT

    def _abort(self, ctx: RecoveryContext) -> RecoveryState:
        ids = [r.request_id for r in ctx.requests]
        ctx.aborted = self.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(ctx.aborted)
        return RecoveryState.DONE

    def _preempt(self, ctx: RecoveryContext) -> RecoveryState:
        sched = self.scheduler
        now = time.monotonic()
        # Preempt newest first so the waiting queue keeps FIFO order.
        for req in reversed(ctx.requests):
            if req.status != RequestStatus.RUNNING:
                continue
            sched.running.remove(req)
            sched._preempt_request(req, now)
            # The failed step's output frame never arrives: nothing is stale.
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            ctx.preempted.append(req.request_id)
        return RecoveryState.DONE
