from __future__ import annotations

import logging
from abc import ABC, abstractmethod

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class RecoveryContext:
    def __init__(self, engine, exc: Exception) -> None:
        self.engine = engine
        self.exc = exc
        self.aborted: list = []

    @property
    def scheduler(self):
        return self.engine.scheduler


class Link(ABC):
    successor: "Link | None" = None

    def handle(self, ctx: RecoveryContext) -> None:
        self.apply(ctx)
        if self.successor is not None:
            self.successor.handle(ctx)

    @abstractmethod
    def apply(self, ctx: RecoveryContext) -> None: ...


class FlushPrefixCacheLink(Link):
    """Nothing cached during the failed step may be reused: drop the prefix cache."""

    def apply(self, ctx: RecoveryContext) -> None:
        flushed = ctx.scheduler.kv_cache_manager.reset_prefix_cache()
        log.info("prefix cache flushed: %s", flushed)


class AbortRunningLink(Link):
    def apply(self, ctx: RecoveryContext) -> None:
        ids = [r.request_id for r in ctx.scheduler.running]
        ctx.aborted = ctx.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)


class NotifyLink(Link):
    def apply(self, ctx: RecoveryContext) -> None:
        ctx.engine._send_abort_outputs(ctx.aborted)


class ChainBuilder:
    def __init__(self) -> None:
        self._links: list[Link] = []

    def then(self, link: Link) -> "ChainBuilder":
        self._links.append(link)
        return self

    def build(self) -> Link:
        for a, b in zip(self._links, self._links[1:]):
            a.successor = b
        return self._links[0]
