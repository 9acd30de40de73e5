# Intended: correct. Resume path: evicts the unconfirmed tail of each running request in every KV-cache group (via get_block_ids and per-group block sizes), then preempts and zeroes both counters.
# Idioms: typing: typing.overload on a helper accepting one request id or many, NewType for ids, Mapping return types, a dataclass config.
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Mapping, NewType, Sequence, overload

BlockId = NewType("BlockId", int)
RequestId = NewType("RequestId", str)


@dataclass(frozen=True)
class GroupLayout:
    block_sizes: tuple[int, ...]

    @classmethod
    def of(cls, kv_cache_manager) -> "GroupLayout":
        return cls(tuple(m.block_size for m in kv_cache_manager.coordinator.single_type_managers))


class TailIndex:
    def __init__(self, kv_cache_manager, layout: GroupLayout, confirmed: Mapping[RequestId, int]) -> None:
        self._kv = kv_cache_manager
        self._layout = layout
        self._confirmed = confirmed

    @overload
    def ids(self, rid: RequestId) -> set[BlockId]: ...
    @overload
    def ids(self, rid: Iterable[RequestId]) -> set[BlockId]: ...

    def ids(self, rid):
        if isinstance(rid, str):
            return self._one(RequestId(rid))
        out: set[BlockId] = set()
        for r in rid:
            out |= self._one(r)
        return out

    def _one(self, rid: RequestId) -> set[BlockId]:
        per_group: Sequence[list[int]] = self._kv.get_block_ids(rid)
        result: set[BlockId] = set()
        for size, group_ids in zip(self._layout.block_sizes, per_group):
            first = self._confirmed[rid] // size
            result.update(BlockId(i) for i in group_ids[first:])
        return result


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)
        confirmed: dict[RequestId, int] = {
            RequestId(r.request_id): r.num_computed_tokens - r.num_in_flight_tokens for r in running
        }
        index = TailIndex(kv, GroupLayout.of(kv), confirmed)
        dirty = index.ids(confirmed.keys())
        if dirty:
            kv.evict_blocks(set(dirty))
        now = time.monotonic()
        for req in running:
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
