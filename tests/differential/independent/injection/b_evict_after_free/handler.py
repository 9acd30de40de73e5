# Intended: buggy: the eviction runs as a post-release hook that looks the request's blocks up in req_to_blocks after finish_requests has already freed the request and popped its block lists, so it finds nothing and the unconfirmed tail stays in the prefix cache.
# Idioms: constructor-injected releaser and a list of post-release hooks (observer style),
# Protocol interfaces, default hook list built when None is passed, an injected logger.
"""Abort-on-fault handler with pluggable post-release hooks."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


class Releaser(Protocol):
    def release(self, scheduler: Any, request_ids: list[str]) -> list[Any]: ...


class PostReleaseHook(Protocol):
    def after_release(self, scheduler: Any, requests: Sequence[Any]) -> None: ...


class AbortReleaser:
    def release(self, scheduler: Any, request_ids: list[str]) -> list[Any]:
        return scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)


class EvictUnconfirmedHook:
    """Invalidates the blocks the failed step wrote, once the requests are gone."""

    def after_release(self, scheduler: Any, requests: Sequence[Any]) -> None:
        kv = scheduler.kv_cache_manager
        ids: set[int] = set()
        for req in requests:
            confirmed = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id) or []
                ids.update(b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null)
        if ids:
            kv.evict_blocks(ids)


class NotifyClientsHook:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def after_release(self, scheduler: Any, requests: Sequence[Any]) -> None:
        self.engine._send_abort_outputs(list(requests))


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        releaser: Releaser | None = None,
        hooks: Sequence[PostReleaseHook] | None = None,
        log: logging.Logger | None = None,
    ) -> None:
        self.engine = engine
        self.releaser = releaser or AbortReleaser()
        self.hooks = list(hooks) if hooks is not None else [EvictUnconfirmedHook(), NotifyClientsHook(engine)]
        self.log = log or logging.getLogger(__name__)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        ids = [r.request_id for r in scheduler.running]
        released = self.releaser.release(scheduler, ids)
        for hook in self.hooks:
            hook.after_release(scheduler, released)
        self.log.warning("fault %s: released %d requests", exc, len(released))
