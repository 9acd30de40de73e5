"""Small generator toolkit for walking a request's KV blocks.

Every function here is lazy: it yields and touches nothing.  The caller
decides when to pull, and must do so before the request's blocks are freed
(``req_to_blocks`` forgets a request once its blocks are freed).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def confirmed_tokens(request: Any) -> int:
    """Tokens whose output came back: the confirmed boundary."""
    return max(request.num_computed_tokens - request.num_in_flight_tokens, 0)


def group_tails(request: Any, managers: Iterable[Any]) -> Iterator[Any]:
    """Blocks of ``request`` from the one holding its confirmed boundary to its
    last one, group by group."""
    boundary = confirmed_tokens(request)
    for mgr in managers:
        held = mgr.req_to_blocks.get(request.request_id)
        if not held:
            continue
        yield from held[boundary // mgr.block_size :]


def real_blocks(blocks: Iterable[Any]) -> Iterator[Any]:
    """Drop the null placeholder blocks (sliding-window padding)."""
    return (b for b in blocks if not b.is_null)


def ids(blocks: Iterable[Any]) -> Iterator[int]:
    return (b.block_id for b in blocks)


def unconfirmed_block_ids(requests: Iterable[Any], managers: Iterable[Any]) -> Iterator[int]:
    managers = tuple(managers)
    for request in requests:
        yield from ids(real_blocks(group_tails(request, managers)))
