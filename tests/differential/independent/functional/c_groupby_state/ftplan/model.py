from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class HeldBlock(NamedTuple):
    group: int
    request_id: str
    index: int
    block_id: int
    block_size: int
    is_null: bool


@dataclass(frozen=True)
class RecoveryState:
    held: tuple[HeldBlock, ...]
    confirmed: dict = field(default_factory=dict, hash=False)  # request id -> confirmed tokens
    evict: frozenset[int] = frozenset()
    mode: str = "abort"


def initial_state(scheduler) -> RecoveryState:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    running = tuple(scheduler.running)
    held = tuple(
        HeldBlock(g, r.request_id, i, b.block_id, m.block_size, b.is_null)
        for g, m in enumerate(managers)
        for r in running
        for i, b in enumerate(m.req_to_blocks.get(r.request_id, ()))
    )
    confirmed = {r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in running}
    return RecoveryState(held=held, confirmed=confirmed)
