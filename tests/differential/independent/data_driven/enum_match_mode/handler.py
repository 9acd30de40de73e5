# Intended: correct.
# An enum.Enum mode chosen from a boolean and dispatched with match; per-request frozen TailPlan dataclasses sorted by request id, with the first dirty block written as ceil((confirmed + 1) / block_size) - 1.
# switch: resume
from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import Any

from vllm.v1.request import RequestStatus


class Mode(enum.Enum):
    ABORT = "abort"
    RESUME = "resume"


@dataclass(frozen=True, slots=True)
class TailPlan:
    request_id: str
    confirmed: int
    block_ids: frozenset[int]


def _first_dirty(confirmed: int, block_size: int) -> int:
    # ceil((c + 1) / b) - 1 == floor(c / b): the block holding token `confirmed`.
    return -(-(confirmed + 1) // block_size) - 1


def plan_tails(scheduler: Any) -> list[TailPlan]:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    plans = []
    for req in sorted(scheduler.running, key=lambda r: r.request_id):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        ids = frozenset(
            block.block_id
            for mgr in managers
            for block in mgr.req_to_blocks.get(req.request_id, [])[_first_dirty(confirmed, mgr.block_size) :]
            if not block.is_null
        )
        plans.append(TailPlan(req.request_id, confirmed, ids))
    return plans


class FaultHandler:
    resume: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @property
    def mode(self) -> Mode:
        return Mode.RESUME if self.resume else Mode.ABORT

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        plans = plan_tails(scheduler)
        dirty = frozenset().union(*(p.block_ids for p in plans))
        if dirty:
            scheduler.kv_cache_manager.evict_blocks(set(dirty))
        match self.mode:
            case Mode.ABORT:
                self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            case Mode.RESUME:
                if not scheduler.running:
                    return
                stamp = time.monotonic()
                while scheduler.running:
                    req = scheduler.running.pop()
                    scheduler._preempt_request(req, stamp)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
