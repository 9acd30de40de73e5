# Intended: correct.
# Idioms: typing.Protocol strategies in a registry filled by a class decorator, helper modules, tuple-swap of the running list.
# switch: resume
"""Pick a recovery strategy by name; invalidate unconfirmed KV first."""

from __future__ import annotations

from invalidate import invalidate_tails
from strategies import strategy


class FaultHandler:
    resume = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        invalidate_tails(scheduler.kv_cache_manager, scheduler.running)
        strategy("resume" if self.resume else "abort").release(self.engine)
