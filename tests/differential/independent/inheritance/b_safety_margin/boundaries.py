"""Where a request's dirty tail starts, as small subclassable policies."""

from __future__ import annotations


class TailBoundary:
    def confirmed(self, request) -> int:
        return max(0, request.num_computed_tokens - request.num_in_flight_tokens)

    def first_index(self, request, block_size: int) -> int:
        return self.confirmed(request) // block_size


class ConservativeBoundary(TailBoundary):
    """Also drop the block before the boundary, in case the lost step's
    attention kernel touched it."""

    margin_blocks = 1

    def first_index(self, request, block_size: int) -> int:
        return max(0, super().first_index(request, block_size) - self.margin_blocks)
