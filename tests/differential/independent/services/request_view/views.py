"""Read-only views over scheduler objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class GroupView:
    index: int
    manager: Any

    @property
    def block_size(self) -> int:
        return self.manager.block_size

    def blocks_of(self, request_id: str) -> list:
        return list(self.manager.req_to_blocks.get(request_id, ()))


@dataclass(frozen=True, slots=True)
class RequestView:
    request: Any

    @property
    def request_id(self) -> str:
        return self.request.request_id

    @property
    def confirmed_tokens(self) -> int:
        """Tokens whose output came back: everything scheduled minus what is still in flight."""
        return self.request.num_computed_tokens - self.request.num_in_flight_tokens

    def first_unconfirmed_block(self, block_size: int) -> int:
        return self.confirmed_tokens // block_size

    def unconfirmed_blocks(self, group: GroupView) -> list:
        return group.blocks_of(self.request_id)[self.first_unconfirmed_block(group.block_size) :]
