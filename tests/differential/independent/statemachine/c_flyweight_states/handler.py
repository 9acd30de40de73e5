# Intended: correct.
# Idioms: State pattern with stateless singleton (flyweight) state objects in a helper module, one context object per request holding its current state, on_enter/on_exit hooks, a guard on the resume branch, per-request transition counters.
# switch: resume
"""Drive every running request through its own state sequence after a fault."""

from __future__ import annotations

import time

from req_states import FAULTED, RequestCtx, SharedCtx


class FaultHandler:
    resume = False
    per_request_limit = 6

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        shared = SharedCtx(scheduler=sched, resume=self.resume, timestamp=time.monotonic())
        # Newest request first: preempted requests are prepended to the waiting queue.
        for req in reversed(list(sched.running)):
            self._drive(RequestCtx(request=req, shared=shared))
        if shared.aborted:
            self.engine._send_abort_outputs(shared.aborted)

    def _drive(self, ctx: RequestCtx) -> None:
        ctx.state = FAULTED
        ctx.state.on_enter(ctx)
        for _ in range(self.per_request_limit):
            if ctx.state.final:
                return
            nxt = ctx.state.next(ctx)
            ctx.state.on_exit(ctx)
            ctx.state = nxt
            nxt.on_enter(ctx)
        if not ctx.state.final:
            raise RuntimeError(
                f"{ctx.request.request_id}: recovery stuck in {ctx.state.label}"
            )
