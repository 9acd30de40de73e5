# Intended: buggy: the before_abort listener calls reset_prefix_cache() to invalidate the dirty KV while the running requests still hold their blocks, so the reset refuses (returns False, only logs a warning) and nothing is evicted before the abort; it would also drop every clean hash if it succeeded.
# Idioms: observer callbacks stored on the handler in __init__ (before_abort / after_abort lists), a listener that wraps a scheduler API, an event dataclass with the aborted requests.
"""Abort-on-fault handler that invalidates the prefix cache before aborting."""

import logging
from dataclasses import dataclass, field

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


@dataclass
class AbortNotice:
    request_ids: list
    aborted: list = field(default_factory=list)
    cache_reset: bool = False


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.before_abort = [self._invalidate_prefix_cache]
        self.after_abort = [self._send_outputs]

    def _invalidate_prefix_cache(self, notice):
        # The lost step may have left garbage behind cached hashes: make sure
        # nothing from before the fault can be hit again.
        notice.cache_reset = self.engine.scheduler.reset_prefix_cache()
        if not notice.cache_reset:
            log.info("prefix cache reset deferred")

    def _send_outputs(self, notice):
        self.engine._send_abort_outputs(notice.aborted)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        notice = AbortNotice([r.request_id for r in sched.running])
        for cb in self.before_abort:
            cb(notice)
        notice.aborted = sched.finish_requests(notice.request_ids, RequestStatus.FINISHED_ABORTED)
        for cb in self.after_abort:
            cb(notice)
