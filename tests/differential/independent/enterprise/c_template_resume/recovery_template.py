"""The fixed skeleton of every recovery procedure."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod

_log = logging.getLogger(__name__)


class AbstractRecoveryProcedure(ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: Exception) -> None:  # template method: do not override
        requests = self.select()
        _log.warning("fault %s: recovering %d requests", type(exc).__name__, len(requests))
        self.quarantine(requests)
        self.dispose(requests)

    @abstractmethod
    def select(self): ...

    @abstractmethod
    def quarantine(self, requests) -> None:
        """Make sure no KV written by the failed step stays reusable."""

    @abstractmethod
    def dispose(self, requests) -> None:
        """Abort or reschedule the requests."""
