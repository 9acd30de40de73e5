"""Tail arithmetic, Go style: every function returns (value, err)."""

from typing import Optional, Tuple

ErrStr = Optional[str]
BlockIDs = list

ERR_NO_MANAGER = "no kv cache manager"
ERR_BAD_BLOCK_SIZE = "block size must be positive"


def first_unconfirmed_index(computed: int, in_flight: int, block_size: int) -> Tuple[int, ErrStr]:
    if block_size <= 0:
        return -1, ERR_BAD_BLOCK_SIZE
    if in_flight < 0 or in_flight > computed:
        return -1, "in-flight count out of range"
    confirmed = computed - in_flight
    return confirmed // block_size, None


def collect_tail(blocks, start: int) -> Tuple[BlockIDs, ErrStr]:
    n = len(blocks)
    if start >= n:
        return [], None
    out = [0] * (n - start)
    k = 0
    i = start
    while i < n:
        blk = blocks[i]
        i += 1
        if blk.is_null:
            continue
        out[k] = blk.block_id
        k += 1
    del out[k:]
    return out, None
