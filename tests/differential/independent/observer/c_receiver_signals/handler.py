# Intended: correct.
# Idioms: module-level signals with @receiver decorators registered at import time (in helper modules), before_abort / after_abort signals sent by the handler.
"""Abort-on-fault handler that announces the abort through signals.

Importing ``kv_receivers`` connects its receivers; the handler only sends
``before_abort`` (tail eviction happens there) and ``after_abort``.
"""

from vllm.v1.request import RequestStatus

import kv_receivers  # noqa: F401  (connects the receivers)
from ft_signals import after_abort, before_abort


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        before_abort.send(scheduler, requests=running)
        aborted = scheduler.finish_requests(
            [r.request_id for r in running], RequestStatus.FINISHED_ABORTED
        )
        after_abort.send(scheduler, requests=aborted, engine=self.engine)
