from __future__ import annotations

import abc
import logging

logger = logging.getLogger(__name__)


class FaultHandlerTemplate(abc.ABC):
    """on_fault = select -> prepare -> release -> finalize."""

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        logger.warning("engine fault: %s", exc)
        requests = self.select_requests()
        if not requests:
            return
        self.before_release(requests)
        self.release(requests)
        self.after_release(requests)

    def select_requests(self) -> list:
        return list(self.scheduler.running)

    def before_release(self, requests: list) -> None:  # noqa: B027 - optional hook
        pass

    @abc.abstractmethod
    def release(self, requests: list) -> None: ...

    def after_release(self, requests: list) -> None:  # noqa: B027 - optional hook
        pass
