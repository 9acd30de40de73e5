# Intended: correct.
# A RecoveryMode enum picks a strategy object (recovery_strategy.py, typed by a Protocol); both strategies scrub the unconfirmed tail of every group first, flattened with itertools.chain.from_iterable.
# switch: prefer_resume
from __future__ import annotations

import logging

from recovery_strategy import STRATEGIES, RecoveryMode, RecoveryStrategy

logger = logging.getLogger(__name__)


class FaultHandler:
    prefer_resume = False

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def mode(self) -> RecoveryMode:
        return RecoveryMode.RESUME if self.prefer_resume else RecoveryMode.ABORT

    def on_fault(self, exc: BaseException) -> None:
        strategy: RecoveryStrategy = STRATEGIES[self.mode]
        handled = strategy.recover(self.engine)
        logger.error(f"recovered from {type(exc).__name__} with {self.mode.name}: {handled} requests")
