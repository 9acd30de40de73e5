"""Unconfirmed tails, one frozen record per request and KV-cache group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Tail:
    request_id: str
    group: int
    first_block: int


def tails_of(request: Any, managers: Any) -> list[Tail]:
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    return [
        Tail(request.request_id, group, divmod(confirmed, mgr.block_size)[0]) for group, mgr in enumerate(managers)
    ]


def tail_ids(tails: list[Tail], managers: Any) -> set[int]:
    ids: set[int] = set()
    for tail in tails:
        blocks = managers[tail.group].req_to_blocks.get(tail.request_id, [])
        ids.update(b.block_id for b in blocks[tail.first_block :] if b.block_hash is not None)
    return ids
