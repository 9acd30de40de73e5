"""Commands the fault handler plans and then runs, one object per effect.

Each command captures everything it needs when it is created, so that the plan
can be logged, inspected or tested before anything touches the scheduler.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

from vllm.v1.request import RequestStatus


class Command(ABC):
    """One side effect on the scheduler."""

    @abstractmethod
    def execute(self, scheduler) -> None: ...

    def describe(self) -> str:
        return type(self).__name__


class EvictFromPrefixCache(Command):
    """Drop the prefix-cache hashes of some blocks of one KV-cache group."""

    def __init__(self, request_id: str, group: int, block_ids: frozenset[int]):
        self.request_id = request_id
        self.group = group
        self.block_ids = block_ids

    def execute(self, scheduler) -> None:
        if self.block_ids:
            scheduler.kv_cache_manager.evict_blocks(set(self.block_ids))

    def describe(self) -> str:
        return f"evict {sorted(self.block_ids)} (group {self.group}) of {self.request_id}"


class AbortRequests(Command):
    def __init__(self, request_ids: list[str], notify):
        self.request_ids = request_ids
        self.notify = notify

    def execute(self, scheduler) -> None:
        aborted = scheduler.finish_requests(self.request_ids, RequestStatus.FINISHED_ABORTED)
        if aborted and self.notify is not None:
            self.notify(aborted)

    def describe(self) -> str:
        return f"abort {self.request_ids}"


class SendBackToWaiting(Command):
    """Preempt a running request and forget the output of the lost step."""

    def __init__(self, request):
        self.request = request

    def execute(self, scheduler) -> None:
        req = self.request
        if req not in scheduler.running:
            return
        scheduler.running.remove(req)
        scheduler._preempt_request(req, time.monotonic())
        # The lost step's frame never arrives: nothing is in flight and
        # nothing is stale any more.
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0

    def describe(self) -> str:
        return f"preempt {self.request.request_id}"
