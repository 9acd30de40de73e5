"""What the fault-path scope may ask a store to remember between runs: answers read with
`ast` that cost more to make than to check. The engine gives one when it has a cache
(lint/scope_memo.py), and the language server's workspace one kept in memory between
edits; without one, every answer is made again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ftlint.index.project import Reads
from ftlint.index.step_scan import Guards


class ScopeMemo(Protocol):
    def guards(self, text: str, steps: tuple[str, ...]) -> tuple[bool, Guards | None]:
        """(True, a module text's step guards: step_scan.guarded_functions) when known,
        else (False, None)."""
        ...

    def keep_guards(self, text: str, steps: tuple[str, ...], guards: Guards | None) -> None: ...

    def reaches_state(self, path: Path, text: str, qualname: str) -> bool | None:
        """Whether the guard in function `qualname` of the module at `path` (of this text)
        may reach request state (reach.StateScreen), when known and every file that answer
        read is as it was; else None."""
        ...

    def keep_reaches_state(
        self,
        path: Path,
        text: str,
        qualname: str,
        verdict: bool,
        reads: Reads,
        text_at: Callable[[Path], str | None],
    ) -> None:
        """Keep an answer with what it read (`text_at`: the texts it read, by path; `reads`
        may be incomplete: a memo that needs every file test then keeps nothing)."""
        ...
