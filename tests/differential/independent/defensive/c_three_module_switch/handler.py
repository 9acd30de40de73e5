# Intended: correct. Scrubs the unconfirmed tail of every running request in all KV-cache groups (helper module), then either aborts or requeues each request with both stale counters reset after the preempt.
# Idioms: helpers split over three modules, policy dataclass with environment defaults, abort/resume switch, try/except logging, perf_counter timing.
# switch: preserve_requests
from __future__ import annotations

import logging
import time

from policy import Policy
from requeue import requeue_all
from scrub import scrub_running
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    preserve_requests = True

    def __init__(self, engine):
        self.engine = engine
        self.policy = Policy()
        self.timings: dict[str, float] = {}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        t = time.perf_counter()
        if self.policy.scrub_unconfirmed:
            n = scrub_running(sched)
            if self.policy.verbose:
                logger.info("scrubbed %s blocks", n)
        self.timings["scrub"] = time.perf_counter() - t
        t = time.perf_counter()
        try:
            if self.preserve_requests:
                requeue_all(sched)
            else:
                aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                if self.policy.notify_clients and hasattr(self.engine, "_send_abort_outputs"):
                    self.engine._send_abort_outputs(aborted)
        except Exception:
            logger.exception("recovery after fault %s failed", exc)
            raise
        finally:
            self.timings["recover"] = time.perf_counter() - t
