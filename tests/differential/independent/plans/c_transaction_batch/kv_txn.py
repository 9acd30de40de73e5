"""A small transaction-like batch for scheduler surgery.

Operations are *staged* while the transaction is open and applied in staging order
on ``commit()``.  Field writes are journalled so that a failure part-way through a
commit puts the request counters back; prefix-cache evictions cannot be undone and
are harmless to repeat, so they are not journalled.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

logger = logging.getLogger(__name__)


@dataclass
class _Staged:
    label: str
    apply: Callable[[], None]


@dataclass
class SchedulerTransaction:
    scheduler: Any
    _staged: list[_Staged] = field(default_factory=list)
    _journal: list[tuple[Any, str, Any]] = field(default_factory=list)
    committed: bool = False

    # staging ---------------------------------------------------------------
    def evict(self, block_ids: set[int], label: str = "evict") -> None:
        ids = set(block_ids)
        if ids:
            self._staged.append(_Staged(label, lambda: self.scheduler.kv_cache_manager.evict_blocks(ids)))

    def call(self, label: str, fn: Callable[[], None]) -> None:
        self._staged.append(_Staged(label, fn))

    def set_field(self, obj: Any, name: str, value: Any) -> None:
        def apply() -> None:
            self._journal.append((obj, name, getattr(obj, name)))
            setattr(obj, name, value)

        self._staged.append(_Staged(f"set {name}={value!r}", apply))

    # lifecycle -------------------------------------------------------------
    def commit(self) -> None:
        try:
            for op in self._staged:
                logger.debug("txn: %s", op.label)
                op.apply()
        except Exception:
            self.rollback()
            raise
        self.committed = True

    def rollback(self) -> None:
        while self._journal:
            obj, name, old = self._journal.pop()
            setattr(obj, name, old)

    def __enter__(self) -> "SchedulerTransaction":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None and not self.committed:
            self.commit()
        return False
