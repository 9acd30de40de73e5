from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol


class InFlightRequest(Protocol):
    request_id: str
    num_computed_tokens: int
    num_in_flight_tokens: int
    num_stale_output_tokens: int


@dataclass(frozen=True)
class TailRange:
    request_id: str
    first_token: int

    @classmethod
    def of(cls, request: InFlightRequest) -> TailRange:
        return cls(request.request_id, request.num_computed_tokens - request.num_in_flight_tokens)

    def block_ids(self, groups: Iterable[Any]) -> set[int]:
        out: set[int] = set()
        for group in groups:
            for block in group.req_to_blocks.get(self.request_id, [])[self.first_token // group.block_size :]:
                if block.is_null:
                    continue
                out.add(block.block_id)
        return out


def for_each_request(scheduler: Any, fn: Callable[[InFlightRequest], None]) -> int:
    done = 0
    while scheduler.running:
        fn(scheduler.running.pop())
        done += 1
    return done
