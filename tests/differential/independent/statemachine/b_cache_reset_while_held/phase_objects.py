"""Phase objects for the abort-on-fault machine: each has enter/exit hooks and
``advance`` returning the next phase's key in the registry."""

from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class Phase:
    key = ""

    def enter(self, ctx) -> None:
        log.debug("enter %s", self.key)

    def exit(self, ctx) -> None:
        log.debug("exit %s", self.key)

    def advance(self, ctx) -> str | None:
        raise NotImplementedError


class Halt(Phase):
    key = "halt"

    def advance(self, ctx):
        ctx.requests = list(ctx.scheduler.running)
        return "invalidate"


class Invalidate(Phase):
    """Make sure nothing the failed step wrote can be hit in the prefix cache."""

    key = "invalidate"

    def advance(self, ctx):
        ctx.cache_reset = ctx.scheduler.kv_cache_manager.reset_prefix_cache()
        if not ctx.cache_reset:
            log.warning("prefix cache reset refused; continuing with abort")
        return "abort"


class Abort(Phase):
    key = "abort"

    def advance(self, ctx):
        ctx.aborted = ctx.scheduler.finish_requests(
            [r.request_id for r in ctx.requests], RequestStatus.FINISHED_ABORTED
        )
        return "notify"


class Notify(Phase):
    key = "notify"

    def advance(self, ctx):
        ctx.engine._send_abort_outputs(ctx.aborted)
        return None


REGISTRY: dict[str, type[Phase]] = {cls.key: cls for cls in (Halt, Invalidate, Abort, Notify)}
