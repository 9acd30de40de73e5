"""Generator stages for the tail scrub, switched on by an environment flag."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

SCRUB_ENV = "VLLM_FT_SCRUB_UNCONFIRMED_KV"


def scrub_enabled() -> bool:
    return os.environ.get(SCRUB_ENV, "0").lower() in ("1", "true", "yes")


def gated(stream: Iterable[Any], enabled: bool) -> Iterator[Any]:
    """Pass ``stream`` through when enabled, else yield nothing (and never
    pull it)."""
    if enabled:
        yield from stream


def tail_blocks(requests: Iterable[Any], managers: Iterable[Any]) -> Iterator[int]:
    managers = tuple(managers)
    for req in requests:
        confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
        for mgr in managers:
            for block in mgr.req_to_blocks.get(req.request_id, ())[confirmed // mgr.block_size :]:
                if not block.is_null:
                    yield block.block_id
