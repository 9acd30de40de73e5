"""Links of the fault-recovery chain."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Optional

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


@dataclass
class FaultContext:
    engine: object
    cause: Exception
    request_ids: list[str] = field(default_factory=list)
    evicted_block_ids: set[int] = field(default_factory=set)
    aborted: list = field(default_factory=list)

    @property
    def scheduler(self):
        return self.engine.scheduler


class RecoveryLink(ABC):
    def __init__(self) -> None:
        self._next: Optional[RecoveryLink] = None

    def set_next(self, link: "RecoveryLink") -> "RecoveryLink":
        self._next = link
        return link

    def handle(self, context: FaultContext) -> None:
        self.process(context)
        if self._next is not None:
            self._next.handle(context)

    @abstractmethod
    def process(self, context: FaultContext) -> None: ...


class SnapshotRunningLink(RecoveryLink):
    """Records which requests were running when the step failed."""

    def process(self, context: FaultContext) -> None:
        context.request_ids = [r.request_id for r in context.scheduler.running]


class TailEvictionLink(RecoveryLink):
    """Drops the prefix-cache hashes of every block touched by the lost step."""

    def process(self, context: FaultContext) -> None:
        scheduler = context.scheduler
        kv = scheduler.kv_cache_manager
        for rid in context.request_ids:
            request = scheduler.requests[rid]
            start = request.num_computed_tokens - request.num_in_flight_tokens
            per_group = kv.get_blocks(rid).blocks
            for manager, blocks in zip(kv.coordinator.single_type_managers, per_group):
                size = manager.block_size
                for index, block in enumerate(blocks):
                    # block `index` covers tokens [index*size, (index+1)*size)
                    if (index + 1) * size > start and not block.is_null:
                        context.evicted_block_ids.add(block.block_id)
        if context.evicted_block_ids:
            kv.evict_blocks(context.evicted_block_ids)
        logger.info("evicted %d unconfirmed blocks", len(context.evicted_block_ids))


class AbortLink(RecoveryLink):
    def process(self, context: FaultContext) -> None:
        context.aborted = context.scheduler.finish_requests(context.request_ids, RequestStatus.FINISHED_ABORTED)


class NotifyClientsLink(RecoveryLink):
    def process(self, context: FaultContext) -> None:
        if context.aborted:
            context.engine._send_abort_outputs(context.aborted)


def build_default_chain() -> RecoveryLink:
    head = SnapshotRunningLink()
    head.set_next(TailEvictionLink()).set_next(AbortLink()).set_next(NotifyClientsLink())
    return head
