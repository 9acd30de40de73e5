"""Public spelling of the rule matchers: `from ftlint import matchers as m` (README).

The same module as `ftlint.syntax.matchers` (node patterns such as `m.Call(...)` are built on
demand per node type), re-exported at the top of the package so the documented import works.
"""

from __future__ import annotations

from typing import Any

from ftlint.syntax import matchers as _matchers
from ftlint.syntax.matchers import NodePattern, OneOf, Pattern, findall, matches

__all__ = ["NodePattern", "OneOf", "Pattern", "findall", "matches"]


def __getattr__(name: str) -> Any:
    """`m.Call`, `m.Name`, ...: the pattern class for a LibCST node type, as in the syntax layer."""
    return getattr(_matchers, name)
