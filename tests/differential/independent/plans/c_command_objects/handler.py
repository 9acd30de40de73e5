# Intended: correct.
# Idioms: command pattern (Command subclasses with execute()/describe()), a planner that
# Idioms: returns a list of commands and a tiny executor loop; abort/resume switch attribute.
# switch: resume_requests
"""Fault handler: plan the recovery as a list of commands, then run them in order."""

from __future__ import annotations

import logging

from recovery_commands import AbortRequests, Command, EvictFromPrefixCache, SendBackToWaiting

log = logging.getLogger(__name__)


class FaultHandler:
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine

    # -- decision -----------------------------------------------------------

    def plan(self, scheduler) -> list[Command]:
        running = list(scheduler.running)
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        commands: list[Command] = []
        for req in running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for group, manager in enumerate(managers):
                held = manager.req_to_blocks.get(req.request_id, ())
                first_dirty = confirmed // manager.block_size
                tail = frozenset(b.block_id for b in held[first_dirty:] if not b.is_null)
                commands.append(EvictFromPrefixCache(req.request_id, group, tail))
        if self.resume_requests:
            # Reverse order: each preempt prepends, so the queue keeps FIFO order.
            commands.extend(SendBackToWaiting(req) for req in reversed(running))
        else:
            notify = getattr(self.engine, "_send_abort_outputs", None)
            commands.append(AbortRequests([r.request_id for r in running], notify))
        return commands

    # -- effect ---------------------------------------------------------------

    def run(self, scheduler, commands: list[Command]) -> None:
        for command in commands:
            log.debug("fault recovery: %s", command.describe())
            command.execute(scheduler)

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        log.warning("engine step failed (%s); recovering %d requests", exc, len(scheduler.running))
        self.run(scheduler, self.plan(scheduler))
