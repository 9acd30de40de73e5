# Intended: correct. Evicts the unconfirmed tail of each running request in every KV-cache group, then aborts or resumes (preempt, then both counters reset).
# Idioms: heavy typing: Protocol for the manager/request shapes, NamedTuple for tail spans, TypedDict summary, Generic result container, Final constants.
# switch: resume
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final, Generic, NamedTuple, Protocol, Sequence, TypedDict, TypeVar

from vllm.v1.request import RequestStatus

T = TypeVar("T")


class BlockLike(Protocol):
    block_id: int
    is_null: bool


class GroupManagerLike(Protocol):
    block_size: int
    req_to_blocks: dict[str, list[BlockLike]]


class RequestLike(Protocol):
    request_id: str
    num_computed_tokens: int
    num_in_flight_tokens: int


class TailSpan(NamedTuple):
    request_id: str
    group: int
    first_block: int
    block_ids: tuple[int, ...]


class FaultSummary(TypedDict):
    path: str
    requests: int
    evicted: int


@dataclass(frozen=True)
class Collected(Generic[T]):
    items: tuple[T, ...]

    def flat_ids(self: "Collected[TailSpan]") -> set[int]:
        return {bid for span in self.items for bid in span.block_ids}


ABORT: Final[str] = "abort"
RESUME: Final[str] = "resume"


def tail_spans(req: RequestLike, managers: Sequence[GroupManagerLike]) -> list[TailSpan]:
    confirmed: int = req.num_computed_tokens - req.num_in_flight_tokens
    spans: list[TailSpan] = []
    for group, mgr in enumerate(managers):
        first = confirmed // mgr.block_size
        blocks = mgr.req_to_blocks.get(req.request_id, [])
        ids = tuple(b.block_id for b in blocks[first:] if not b.is_null)
        spans.append(TailSpan(req.request_id, group, first, ids))
    return spans


class FaultHandler:
    resume: bool = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self.last_summary: FaultSummary | None = None

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers: Sequence[GroupManagerLike] = kv.coordinator.single_type_managers
        running: list[RequestLike] = list(sched.running)
        collected: Collected[TailSpan] = Collected(tuple(s for r in running for s in tail_spans(r, managers)))
        ids = collected.flat_ids()
        if ids:
            kv.evict_blocks(ids)
        if self.resume:
            ts = time.monotonic()
            for req in running:
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
        self.last_summary = FaultSummary(path=RESUME if self.resume else ABORT, requests=len(running), evicted=len(ids))
