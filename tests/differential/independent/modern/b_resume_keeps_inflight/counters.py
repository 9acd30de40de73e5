"""Counter bookkeeping around a preemption."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True, kw_only=True, frozen=True)
class CounterState:
    in_flight: int
    stale: int

    @classmethod
    def read(cls, request: Any) -> CounterState:
        return cls(in_flight=request.num_in_flight_tokens, stale=request.num_stale_output_tokens)


def clear_stale(request: Any) -> CounterState:
    """After a preempt, forget the stale output the lost step will never deliver."""
    before = CounterState.read(request)
    match before:
        case CounterState(stale=0):
            pass
        case CounterState(stale=n) if n > 0:
            request.num_stale_output_tokens = 0
    return before
