"""Recovery actions as a tiny IR, with visitors to apply or describe them."""

from __future__ import annotations

import time
from dataclasses import dataclass

from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class InvalidateBlocks:
    group: int
    block_ids: tuple[int, ...]

    def accept(self, visitor):
        return visitor.visit_invalidate(self)


@dataclass(frozen=True)
class FinishAborted:
    request_ids: tuple[str, ...]

    def accept(self, visitor):
        return visitor.visit_finish(self)


@dataclass(frozen=True)
class Requeue:
    request_id: str

    def accept(self, visitor):
        return visitor.visit_requeue(self)


class Describer:
    def visit_invalidate(self, a: InvalidateBlocks) -> str:
        return f"invalidate group {a.group}: {list(a.block_ids)}"

    def visit_finish(self, a: FinishAborted) -> str:
        return f"abort {list(a.request_ids)}"

    def visit_requeue(self, a: Requeue) -> str:
        return f"requeue {a.request_id}"


class Applier:
    def __init__(self, engine):
        self.engine = engine
        self.scheduler = engine.scheduler
        self.timestamp = time.monotonic()

    def visit_invalidate(self, a: InvalidateBlocks) -> None:
        self.scheduler.kv_cache_manager.evict_blocks(set(a.block_ids))

    def visit_finish(self, a: FinishAborted) -> None:
        done = self.scheduler.finish_requests(list(a.request_ids), RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(done)

    def visit_requeue(self, a: Requeue) -> None:
        sched = self.scheduler
        req = sched.requests[a.request_id]
        sched.running.remove(req)
        # Clear the lost step's in-flight count first: the preempt copies it into
        # num_stale_output_tokens, so both end up zero.
        req.num_in_flight_tokens = 0
        sched._preempt_request(req, self.timestamp)
