"""Generators over the unconfirmed KV tail of requests."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def tail_block_ids(managers: Iterable[Any], request: Any) -> Iterator[int]:
    confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
    for mgr in managers:
        for block in mgr.req_to_blocks[request.request_id][confirmed // mgr.block_size :]:
            if not block.is_null:
                yield block.block_id


def all_tails(managers: Iterable[Any], requests: Iterable[Any]) -> Iterator[int]:
    managers = tuple(managers)
    for request in requests:
        yield from tail_block_ids(managers, request)
