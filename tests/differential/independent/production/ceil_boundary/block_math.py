from __future__ import annotations


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def tail_slice(confirmed_tokens: int, block_size: int) -> slice:
    """Blocks after the confirmed prefix."""
    return slice(cdiv(confirmed_tokens, block_size), None)
