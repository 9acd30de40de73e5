# Intended: buggy: instead of evicting the tail it resets the whole prefix cache while the running requests still hold their blocks, which vLLM refuses (the reset returns False and clears nothing), so the dirty tail stays cached.
# Idioms: abstract template base with before_release / release / after_release hooks, a mixin that invalidates the cache in before_release through super(), leaf FaultHandler that aborts.
"""Abort on fault after invalidating the prefix cache."""

from __future__ import annotations

import abc
import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultTemplate(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.scheduler.running)
        self.before_release(requests)
        released = self.release(requests)
        self.after_release(released)

    def before_release(self, requests) -> None:
        pass

    @abc.abstractmethod
    def release(self, requests) -> list: ...

    def after_release(self, released) -> None:
        pass


class CacheInvalidationMixin:
    """The failed step may have cached blocks it never wrote: drop every hash."""

    def before_release(self, requests) -> None:
        if not self.scheduler.kv_cache_manager.reset_prefix_cache():
            log.warning("prefix cache reset did not complete")
        super().before_release(requests)


class FaultHandler(CacheInvalidationMixin, FaultTemplate):
    def release(self, requests) -> list:
        return self.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)

    def after_release(self, released) -> None:
        super().after_release(released)
        self.engine._send_abort_outputs(released)
