# Intended: correct.
# Idioms: strategy pattern with abc.ABC interfaces, constructor dependency injection with default implementations, @property getters, abort/resume strategies selected by a class attribute.
# switch: RESUME_ON_FAULT
"""Engine-core fault handler built from pluggable strategies."""

from __future__ import annotations

import logging
from typing import Optional

from ft_eviction import EvictionStrategy, UnconfirmedTailEviction
from ft_recovery import AbortRecovery, RecoveryStrategy, ResumeRecovery

logger = logging.getLogger(__name__)


class FaultHandler:
    """Reacts to a busy-loop fault: quarantine the unconfirmed KV, then recover."""

    RESUME_ON_FAULT: bool = False

    def __init__(
        self,
        engine,
        eviction: Optional[EvictionStrategy] = None,
        abort_recovery: Optional[RecoveryStrategy] = None,
        resume_recovery: Optional[RecoveryStrategy] = None,
    ) -> None:
        self._engine = engine
        self._eviction = eviction if eviction is not None else UnconfirmedTailEviction()
        self._abort_recovery = abort_recovery if abort_recovery is not None else AbortRecovery()
        self._resume_recovery = resume_recovery if resume_recovery is not None else ResumeRecovery()

    @property
    def engine(self):
        return self._engine

    @property
    def recovery(self) -> RecoveryStrategy:
        return self._resume_recovery if self.RESUME_ON_FAULT else self._abort_recovery

    def on_fault(self, exc: Exception) -> None:
        logger.warning("engine fault (%s); recovering with %s", type(exc).__name__, self.recovery.name)
        scheduler = self.engine.scheduler
        affected = list(scheduler.running)
        for request in affected:
            self._eviction.evict(scheduler, request)
        self.recovery.recover(self.engine, affected)
