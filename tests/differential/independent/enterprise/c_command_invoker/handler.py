# Intended: correct.
# Idioms: command pattern (one command object per request and action, queued on an invoker that executes them in order), a command factory, an abort/resume switch.
# switch: resume_requests
"""Turns a fault into a queue of commands and runs them."""

from __future__ import annotations

from recovery_commands import CommandFactory, CommandInvoker


class FaultHandler:
    resume_requests = False

    def __init__(self, engine, factory: CommandFactory | None = None, invoker: CommandInvoker | None = None) -> None:
        self.engine = engine
        self._factory = factory or CommandFactory()
        self._invoker = invoker or CommandInvoker()

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        # Phase 1: quarantine every request's tail while all blocks are still held.
        for request in running:
            self._invoker.enqueue(self._factory.evict_tail(scheduler, request))
        # Phase 2: release.
        if self.resume_requests:
            for request in reversed(running):
                self._invoker.enqueue(self._factory.requeue(scheduler, request))
        else:
            self._invoker.enqueue(self._factory.abort_all(self.engine, running))
        self._invoker.run()
