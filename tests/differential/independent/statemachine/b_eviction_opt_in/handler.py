# Intended: buggy: dropping the unconfirmed tail from the prefix cache is behind a constructor option that defaults to off, so with the default configuration the guard never lets the machine into the eviction state and the dirty blocks stay cached on both paths.
# Idioms: guarded transitions declared as a list of (from, guard name, to) rows resolved against methods, per-state entry actions in a dict, string states, an options object carried in the context, a transition counter.
# switch: resume_requests
"""Configurable fault-recovery machine."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from vllm.v1.request import RequestStatus


@dataclass
class RecoveryOptions:
    evict_unconfirmed: bool = False  # opt in once the eviction path is proven in production
    notify_clients: bool = True


@dataclass
class Ctx:
    opts: RecoveryOptions
    resume: bool
    requests: list = field(default_factory=list)
    tail_ids: set[int] = field(default_factory=set)
    aborted: list = field(default_factory=list)


RULES = (
    ("start", "has_requests", "collected"),
    ("start", "always", "done"),
    ("collected", "eviction_enabled", "evicting"),
    ("collected", "wants_resume", "requeueing"),
    ("collected", "always", "aborting"),
    ("evicting", "wants_resume", "requeueing"),
    ("evicting", "always", "aborting"),
    ("requeueing", "always", "done"),
    ("aborting", "always", "done"),
)


class FaultHandler:
    resume_requests = False

    def __init__(self, engine, options: RecoveryOptions | None = None):
        self.engine = engine
        self.options = options or RecoveryOptions()
        self.entry = {
            "collected": self._collect,
            "evicting": self._evict,
            "requeueing": self._requeue,
            "aborting": self._abort,
        }

    # guards
    def always(self, ctx: Ctx) -> bool:
        return True

    def has_requests(self, ctx: Ctx) -> bool:
        return bool(self.engine.scheduler.running)

    def eviction_enabled(self, ctx: Ctx) -> bool:
        return ctx.opts.evict_unconfirmed

    def wants_resume(self, ctx: Ctx) -> bool:
        return ctx.resume

    def on_fault(self, exc):
        ctx = Ctx(opts=self.options, resume=self.resume_requests)
        state = "start"
        moves = 0
        while state != "done":
            moves += 1
            if moves > 2 * len(RULES):
                raise RuntimeError(f"recovery machine looping in {state}") from exc
            for src, guard, dst in RULES:
                if src == state and getattr(self, guard)(ctx):
                    state = dst
                    break
            else:
                raise RuntimeError(f"no rule leaves {state}")
            enter = self.entry.get(state)
            if enter is not None:
                enter(ctx)
        return ctx

    # entry actions
    def _collect(self, ctx: Ctx) -> None:
        ctx.requests = list(self.engine.scheduler.running)

    def _evict(self, ctx: Ctx) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        for req in ctx.requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                held = mgr.req_to_blocks.get(req.request_id, [])
                ctx.tail_ids.update(b.block_id for b in held[confirmed // mgr.block_size:] if not b.is_null)
        if ctx.tail_ids:
            kv.evict_blocks(ctx.tail_ids)

    def _requeue(self, ctx: Ctx) -> None:
        sched = self.engine.scheduler
        ts = time.monotonic()
        for req in reversed(ctx.requests):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

    def _abort(self, ctx: Ctx) -> None:
        ctx.aborted = self.engine.scheduler.finish_requests(
            [r.request_id for r in ctx.requests], RequestStatus.FINISHED_ABORTED
        )
        if self.options.notify_clients:
            self.engine._send_abort_outputs(ctx.aborted)
