# Intended: buggy: instead of evicting the tail it resets the whole prefix cache before aborting, while the running requests still hold their blocks; the block pool refuses the reset (blocks in use) and the return value is ignored, so every dirty block stays cached.
# Idioms: recursive abort over the running list (head recursion, one request per level, results accumulated on the way up), cache invalidation up front; aborts.
"""Abort-on-fault handler that invalidates the prefix cache first."""

import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        # KV written by the failed step cannot be trusted: drop all cached prefixes.
        sched.kv_cache_manager.reset_prefix_cache()
        aborted = self._abort(sched, [r.request_id for r in sched.running])
        logger.warning("aborted %d requests after %r", len(aborted), exc)
        self.engine._send_abort_outputs(aborted)

    def _abort(self, sched, ids):
        if not ids:
            return []
        done = sched.finish_requests(ids[0], RequestStatus.FINISHED_ABORTED)
        return done + self._abort(sched, ids[1:])
