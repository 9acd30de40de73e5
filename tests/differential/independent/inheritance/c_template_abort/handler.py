# Intended: correct.
# Idioms: abc.ABC base with a template-method on_fault (select_requests / before_release / release / after_release), abstractmethod hooks, a per-request view whose tail is a cached_property, leaf FaultHandler extending a hook with super().
"""Abort every running request after a failed step, dropping its unconfirmed tail
from the prefix cache first."""

from __future__ import annotations

import abc
import logging
from collections.abc import Iterable, Sequence
from functools import cached_property

from vllm.v1.request import Request, RequestStatus

logger = logging.getLogger(__name__)


class RequestTailView:
    """Read-only view of one request's KV blocks written by the lost step."""

    def __init__(self, request: Request, managers: Sequence[object]) -> None:
        self.request = request
        self.managers = managers

    @cached_property
    def confirmed_tokens(self) -> int:
        req = self.request
        return max(0, req.num_computed_tokens - req.num_in_flight_tokens)

    @cached_property
    def dirty_block_ids(self) -> frozenset[int]:
        ids: set[int] = set()
        for manager in self.managers:
            first = self.confirmed_tokens // manager.block_size
            for block in manager.req_to_blocks.get(self.request.request_id, ())[first:]:
                if not block.is_null:
                    ids.add(block.block_id)
        return frozenset(ids)


class BaseFaultHandler(abc.ABC):
    """Template for fault handlers: subclasses fill in the hooks."""

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        logger.warning("fault handler %s: %r", type(self).__name__, exc)
        requests = list(self.select_requests())
        self.before_release(requests)
        released = self.release(requests)
        self.after_release(released)

    @abc.abstractmethod
    def select_requests(self) -> Iterable[Request]:
        """Requests the fault concerns."""

    def before_release(self, requests: list[Request]) -> None:
        """Runs while the requests still hold their blocks."""

    @abc.abstractmethod
    def release(self, requests: list[Request]) -> list[Request]:
        """Give the requests' blocks back; returns what was released."""

    def after_release(self, released: list[Request]) -> None:
        """Runs once the blocks are gone."""


class FaultHandler(BaseFaultHandler):
    def select_requests(self) -> Iterable[Request]:
        return tuple(self.scheduler.running)

    def before_release(self, requests: list[Request]) -> None:
        super().before_release(requests)
        kv = self.scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        doomed: set[int] = set()
        for request in requests:
            doomed |= RequestTailView(request, managers).dirty_block_ids
        if doomed:
            kv.evict_blocks(doomed)

    def release(self, requests: list[Request]) -> list[Request]:
        ids = [r.request_id for r in requests]
        return self.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)

    def after_release(self, released: list[Request]) -> None:
        super().after_release(released)
        self.engine._send_abort_outputs(released)
