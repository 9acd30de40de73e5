"""Token spans of a request that a failed step left unconfirmed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TailSpan:
    request_id: str
    start: int  # first unconfirmed token
    stop: int  # num_computed_tokens

    @classmethod
    def of(cls, request) -> "TailSpan":
        stop = request.num_computed_tokens
        return cls(request.request_id, max(0, stop - request.num_in_flight_tokens), stop)

    @property
    def empty(self) -> bool:
        return self.stop <= self.start

    def block_slice(self, block_size: int) -> slice:
        """Blocks touching [start, stop): the one holding ``start`` and all later."""
        return slice(self.start // block_size, None)

    def block_ids(self, manager) -> list[int]:
        blocks = manager.req_to_blocks.get(self.request_id, [])
        return [b.block_id for b in blocks[self.block_slice(manager.block_size)] if not b.is_null]
