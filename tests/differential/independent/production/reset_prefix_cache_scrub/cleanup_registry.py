from __future__ import annotations

import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)


class CleanupRegistry:
    def __init__(self) -> None:
        self._steps: list[tuple[str, Callable[[], None]]] = []

    def add(self, name: str, step: Callable[[], None]) -> None:
        self._steps.append((name, step))

    def run_all(self) -> None:
        for name, step in self._steps:
            logger.debug(f"fault cleanup: {name}")
            step()
