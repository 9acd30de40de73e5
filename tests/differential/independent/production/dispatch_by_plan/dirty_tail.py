"""Which blocks of a request a failed step may have cached without writing."""
from __future__ import annotations

import itertools
from typing import Any


def _tail_of(manager: Any, request: Any) -> list[Any]:
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    blocks = manager.req_to_blocks.get(request.request_id, [])
    return blocks[confirmed // manager.block_size :]


def unconfirmed_block_ids(kv_manager: Any, request: Any) -> set[int]:
    managers = kv_manager.coordinator.single_type_managers
    tails = itertools.chain.from_iterable(_tail_of(m, request) for m in managers)
    return {block.block_id for block in tails if not block.is_null}
