# Intended: buggy: the abort command is queued ahead of the per-request eviction commands, and each eviction command reads the request's block table only when it executes, after finish_requests has freed it, so it finds no blocks and the dirty tail stays in the prefix cache.
# Idioms: command pattern with a priority-ordered invoker, lazily evaluated commands, a command factory injected through the constructor; abort-only.
"""Fault handler that schedules its recovery work as prioritised commands."""

from __future__ import annotations

from ops_queue import OperationFactory, PriorityInvoker


class FaultHandler:
    def __init__(self, engine, operations: OperationFactory | None = None) -> None:
        self.engine = engine
        self._operations = operations or OperationFactory(engine)

    def on_fault(self, exc: Exception) -> None:
        invoker = PriorityInvoker()
        running = list(self.engine.scheduler.running)
        # Client-visible work first: abort quickly so the API server can reply.
        invoker.submit(self._operations.abort(running), priority=0)
        for request in running:
            invoker.submit(self._operations.evict_tail(request), priority=1)
        invoker.drain()
