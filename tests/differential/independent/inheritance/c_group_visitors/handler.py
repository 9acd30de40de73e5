# Intended: correct.
# Idioms: per-KV-cache-group strategy classes registered through __init_subclass__ and chosen by the group's spec type, abstract GroupTail base with a template method and an overridable hook, cached_property, leaf FaultHandler that aborts.
"""Abort after a fault; each KV-cache group's manager decides, through its own
GroupTail subclass, which of a request's blocks the lost step wrote."""

from __future__ import annotations

import abc
from functools import cached_property
from typing import ClassVar

from vllm.v1.kv_cache_interface import FullAttentionSpec, SlidingWindowSpec
from vllm.v1.request import RequestStatus


class GroupTail(abc.ABC):
    registry: ClassVar[dict[type, type["GroupTail"]]] = {}
    spec_type: ClassVar[type | None] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.spec_type is not None:
            GroupTail.registry[cls.spec_type] = cls

    def __init__(self, manager) -> None:
        self.manager = manager

    @classmethod
    def for_manager(cls, manager) -> "GroupTail":
        for klass in type(manager.kv_cache_spec).__mro__:
            if klass in cls.registry:
                return cls.registry[klass](manager)
        return DefaultGroupTail(manager)

    @cached_property
    def block_size(self) -> int:
        return self.manager.block_size

    def block_ids(self, request) -> list[int]:
        blocks = self.manager.req_to_blocks.get(request.request_id, [])
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        return [b.block_id for b in blocks[confirmed // self.block_size :] if self.keep(b)]

    @abc.abstractmethod
    def keep(self, block) -> bool: ...


class DefaultGroupTail(GroupTail):
    def keep(self, block) -> bool:
        return not block.is_null


class FullAttentionTail(DefaultGroupTail):
    spec_type = FullAttentionSpec


class SlidingWindowTail(DefaultGroupTail):
    """Blocks that slid out of the window are replaced by the null block."""

    spec_type = SlidingWindowSpec

    def keep(self, block) -> bool:
        return super().keep(block) and block.block_id != 0


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def kv(self):
        return self.engine.scheduler.kv_cache_manager

    @cached_property
    def group_tails(self) -> list[GroupTail]:
        return [GroupTail.for_manager(m) for m in self.kv.coordinator.single_type_managers]

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        dirty = {bid for tail in self.group_tails for req in running for bid in tail.block_ids(req)}
        self.kv.evict_blocks(dirty)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
