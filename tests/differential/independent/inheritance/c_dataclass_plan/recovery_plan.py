"""A snapshot, taken the moment a fault is seen, of what recovery must undo."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RequestPlan:
    request: object
    confirmed: int
    dirty: dict[int, list[int]] = field(default_factory=dict)  # group index -> block ids

    @property
    def request_id(self) -> str:
        return self.request.request_id

    @property
    def all_dirty(self) -> set[int]:
        return {bid for ids in self.dirty.values() for bid in ids}


@dataclass
class RecoveryPlan:
    entries: list[RequestPlan]

    @classmethod
    def capture(cls, scheduler) -> "RecoveryPlan":
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        entries = []
        for request in scheduler.running:
            confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
            entry = RequestPlan(request, confirmed)
            for group, manager in enumerate(managers):
                blocks = manager.req_to_blocks.get(request.request_id, [])
                entry.dirty[group] = [
                    b.block_id for b in blocks[confirmed // manager.block_size :] if not b.is_null
                ]
            entries.append(entry)
        return cls(entries)

    @property
    def dirty_block_ids(self) -> set[int]:
        out: set[int] = set()
        for entry in self.entries:
            out |= entry.all_dirty
        return out

    @property
    def request_ids(self) -> list[str]:
        return [e.request_id for e in self.entries]
