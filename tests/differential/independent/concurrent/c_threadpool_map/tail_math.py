"""Block arithmetic for the unconfirmed tail of a request."""

from __future__ import annotations


def confirmed_tokens(request) -> int:
    """Tokens whose step really came back (the rest is the unconfirmed tail)."""
    return max(request.num_computed_tokens - request.num_in_flight_tokens, 0)


def tail_block_ids(managers, request) -> frozenset[int]:
    """Ids of the blocks holding the unconfirmed tail, over every KV-cache group.

    The block that holds the confirmed boundary is included: part of it was
    written by the lost step.
    """
    confirmed = confirmed_tokens(request)
    ids: set[int] = set()
    for manager in managers:
        start = confirmed // manager.block_size
        for block in manager.req_to_blocks.get(request.request_id, [])[start:]:
            if not block.is_null:
                ids.add(block.block_id)
    return frozenset(ids)
