# Intended: buggy: the transition table aborts the requests before the scrub state runs, and the scrub reads each request's blocks from the KV manager after the abort has freed them and dropped its block lists, so it finds nothing and the unconfirmed tail stays in the prefix cache.
# Idioms: Enum states with a dict transition table of state -> (action method, next state), a run loop until the terminal state, a max-iterations guard, a context object passed to every action.
"""Abort-on-fault recovery: stop the requests first, then scrub the KV they left behind."""

from __future__ import annotations

import enum
import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class Step(enum.Enum):
    FREEZE = enum.auto()
    ABORT = enum.auto()
    SCRUB = enum.auto()
    NOTIFY = enum.auto()
    STOPPED = enum.auto()


class _Ctx:
    __slots__ = ("scheduler", "request_ids", "aborted", "scrubbed")

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.request_ids: list[str] = []
        self.aborted: list = []
        self.scrubbed: set[int] = set()


class FaultHandler:
    MAX_ITERATIONS = 10

    def __init__(self, engine):
        self.engine = engine
        # Abort first so nothing can schedule onto the blocks while we scrub them.
        self.table = {
            Step.FREEZE: (self._freeze, Step.ABORT),
            Step.ABORT: (self._abort, Step.SCRUB),
            Step.SCRUB: (self._scrub, Step.NOTIFY),
            Step.NOTIFY: (self._notify, Step.STOPPED),
        }

    def on_fault(self, exc):
        ctx = _Ctx(self.engine.scheduler)
        step = Step.FREEZE
        for _ in range(self.MAX_ITERATIONS):
            if step is Step.STOPPED:
                break
            action, following = self.table[step]
            action(ctx)
            step = following
        else:
            raise RuntimeError(f"fault recovery stuck at {step}") from exc
        logger.info("fault recovery scrubbed %d block(s)", len(ctx.scrubbed))

    def _freeze(self, ctx: _Ctx) -> None:
        ctx.request_ids = [r.request_id for r in ctx.scheduler.running]

    def _abort(self, ctx: _Ctx) -> None:
        ctx.aborted = ctx.scheduler.finish_requests(ctx.request_ids, RequestStatus.FINISHED_ABORTED)

    def _scrub(self, ctx: _Ctx) -> None:
        kv = ctx.scheduler.kv_cache_manager
        by_id = {r.request_id: r for r in ctx.aborted}
        for rid in ctx.request_ids:
            req = by_id.get(rid)
            if req is None:
                continue
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(rid, [])
                ctx.scrubbed.update(
                    b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null
                )
        if ctx.scrubbed:
            kv.evict_blocks(ctx.scrubbed)

    def _notify(self, ctx: _Ctx) -> None:
        self.engine._send_abort_outputs(ctx.aborted)
