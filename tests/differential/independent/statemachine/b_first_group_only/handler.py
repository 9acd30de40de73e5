# Intended: buggy: it takes the request's block ids from the first KV-cache group only, so with a second group (sliding-window attention) that group's unconfirmed tail blocks stay in the prefix cache.
# Idioms: State pattern (a class per state with enter/exit hooks, nested in the handler), a Machine object that owns the context and the current state, transitions via machine.go(NextState), a step counter.
# switch: resume_mode
"""Recover from an engine-core fault with a small class-per-state machine."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_mode = False

    class _State:
        def enter(self, m: "FaultHandler._Machine") -> None: ...

        def exit(self, m: "FaultHandler._Machine") -> None: ...

        def step(self, m: "FaultHandler._Machine") -> None:
            raise NotImplementedError

    class Inspect(_State):
        def step(self, m):
            m.requests = list(m.scheduler.running)
            m.go(FaultHandler.Evict if m.requests else FaultHandler.Finished)

    class Evict(_State):
        def enter(self, m):
            m.doomed = set()

        def step(self, m):
            kv = m.scheduler.kv_cache_manager
            bs = m.scheduler.block_size
            for req in m.requests:
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                block_ids = kv.get_block_ids(req.request_id)[0]
                m.doomed.update(block_ids[confirmed // bs:])
            m.go(FaultHandler.Requeue if m.resume else FaultHandler.Abort)

        def exit(self, m):
            if m.doomed:
                m.scheduler.kv_cache_manager.evict_blocks(m.doomed)

    class Abort(_State):
        def step(self, m):
            m.aborted = m.scheduler.finish_requests(
                [r.request_id for r in m.requests], RequestStatus.FINISHED_ABORTED
            )
            m.engine._send_abort_outputs(m.aborted)
            m.go(FaultHandler.Finished)

    class Requeue(_State):
        def step(self, m):
            ts = time.monotonic()
            for req in reversed(m.requests):
                m.scheduler.running.remove(req)
                m.scheduler._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            m.go(FaultHandler.Finished)

    class Finished(_State):
        def step(self, m):
            m.running = False

    class _Machine:
        def __init__(self, engine, resume: bool):
            self.engine = engine
            self.scheduler = engine.scheduler
            self.resume = resume
            self.requests: list = []
            self.doomed: set[int] = set()
            self.aborted: list = []
            self.state: "FaultHandler._State | None" = None
            self.running = True

        def go(self, state_cls) -> None:
            if self.state is not None:
                self.state.exit(self)
            self.state = state_cls()
            self.state.enter(self)

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        m = self._Machine(self.engine, self.resume_mode)
        m.go(self.Inspect)
        for _ in range(16):
            if not m.running:
                return m
            m.state.step(m)
        raise RuntimeError("recovery state machine did not stop") from exc
