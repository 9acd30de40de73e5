"""Structural types for the parts of vLLM's scheduler a fault handler touches."""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import Protocol, TypedDict


class BlockLike(Protocol):
    @property
    def block_id(self) -> int: ...
    @property
    def is_null(self) -> bool: ...


class GroupManagerLike(Protocol):
    block_size: int
    req_to_blocks: dict[str, list[BlockLike]]


class RequestLike(Protocol):
    request_id: str
    num_computed_tokens: int
    num_in_flight_tokens: int
    num_stale_output_tokens: int


class EvictionPlan(TypedDict):
    request_id: str
    confirmed: int
    block_ids: list[int]


class RunningQueue(Protocol):
    def remove(self, item: RequestLike, /) -> None: ...


Managers = Sequence[GroupManagerLike]
Plans = MutableSequence[EvictionPlan]
