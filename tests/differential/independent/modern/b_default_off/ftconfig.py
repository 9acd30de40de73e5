"""Fault-tolerance settings, as an immutable keyword-only value object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypedDict, Unpack


class FTOverrides(TypedDict, total=False):
    evict_dirty_tail: bool
    resume: bool


@dataclass(slots=True, kw_only=True, frozen=True)
class FTConfig:
    #: Opt-in until the eviction has soaked in production.
    evict_dirty_tail: bool = False
    resume: bool = False

    @classmethod
    def build(cls, **overrides: Unpack[FTOverrides]) -> FTConfig:
        return cls(**overrides)


DEFAULT: Final = FTConfig()
