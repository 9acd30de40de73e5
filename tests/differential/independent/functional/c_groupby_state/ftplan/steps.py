from __future__ import annotations

from dataclasses import replace
from itertools import chain, groupby
from operator import attrgetter

from .model import RecoveryState

_by_group_and_request = attrgetter("group", "request_id")


def with_dirty_tail(state: RecoveryState) -> RecoveryState:
    ordered = sorted(state.held, key=_by_group_and_request)
    per_key = (
        (blk.block_id for blk in blocks
         if not blk.is_null and blk.index >= max(state.confirmed[rid], 0) // blk.block_size)
        for (_group, rid), blocks in groupby(ordered, key=_by_group_and_request)
    )
    return replace(state, evict=frozenset(chain.from_iterable(per_key)))


def with_mode(resume: bool):
    def step(state: RecoveryState) -> RecoveryState:
        return replace(state, mode="resume" if resume else "abort")
    return step
