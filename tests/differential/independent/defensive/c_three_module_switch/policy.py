"""Recovery policy: read once from the environment, with safe defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _flag(name: str, default: str) -> bool:
    return os.environ.get(name, default).strip().lower() in ("1", "true", "on", "yes")


@dataclass
class Policy:
    scrub_unconfirmed: bool = field(default_factory=lambda: _flag("FT_SCRUB", "1"))
    notify_clients: bool = field(default_factory=lambda: _flag("FT_NOTIFY", "1"))
    verbose: bool = field(default_factory=lambda: _flag("FT_VERBOSE", "0"))
