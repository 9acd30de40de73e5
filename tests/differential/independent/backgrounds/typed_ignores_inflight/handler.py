# Intended: buggy: the tail boundary is num_computed_tokens // block_size, ignoring num_in_flight_tokens, so the blocks the failed step filled stay cached before the abort.
# Idioms: typing: NamedTuple records, a dataclass with slots, typing.overload for a single/many helper, Literal path tag.
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, NamedTuple, overload

from vllm.v1.request import RequestStatus


class Boundary(NamedTuple):
    request_id: str
    token: int


@dataclass(slots=True)
class EvictionBatch:
    block_ids: set[int]
    kind: Literal["tail"] = "tail"

    def __bool__(self) -> bool:
        return bool(self.block_ids)


def boundary_of(req) -> Boundary:
    return Boundary(req.request_id, req.num_computed_tokens)


@overload
def collect(boundaries: Boundary, managers) -> EvictionBatch: ...
@overload
def collect(boundaries: Iterable[Boundary], managers) -> EvictionBatch: ...


def collect(boundaries, managers) -> EvictionBatch:
    if isinstance(boundaries, Boundary):
        boundaries = (boundaries,)
    ids: set[int] = set()
    for bd in boundaries:
        for mgr in managers:
            blocks = mgr.req_to_blocks.get(bd.request_id, [])
            ids.update(b.block_id for b in blocks[bd.token // mgr.block_size:])
    return EvictionBatch(ids)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        batch = collect([boundary_of(r) for r in scheduler.running], kvm.coordinator.single_type_managers)
        if batch:
            kvm.evict_blocks(batch.block_ids)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
