"""DirtySpan records: where each running request's unconfirmed tail starts, per KV-cache group."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product
from typing import Any, NamedTuple


class DirtySpan(NamedTuple):
    request_id: str
    first_block: int
    group: int


def dirty_spans(running: Iterable[Any], managers: Sequence[Any]) -> list[DirtySpan]:
    """One span per (request, group) whose last step is still in flight."""
    return [
        DirtySpan(
            req.request_id,
            (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size,
            group,
        )
        for req, (group, mgr) in product(running, enumerate(managers))
        if req.num_in_flight_tokens > 0
    ]


def span_block_ids(spans: Iterable[DirtySpan], managers: Sequence[Any]) -> set[int]:
    """Block ids from each span's first block to the end of the request's list."""
    return {
        block.block_id
        for span in spans
        for block in managers[span.group].req_to_blocks.get(span.request_id, ())[span.first_block :]
        if not block.is_null
    }
