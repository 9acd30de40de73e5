# Intended: buggy: instead of evicting the tail it resets the whole prefix cache before aborting, while the running requests still hold their blocks, so the reset is refused and every dirty block stays cached.
# Idioms: `or` as a fallback logging call, logging with lazy args, list comprehension of ids passed to finish_requests, abort only.
import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        s.kv_cache_manager.reset_prefix_cache() or log.warning("fault %r: prefix cache not reset", exc)
        self.engine._send_abort_outputs(
            s.finish_requests([r.request_id for r in s.running], RequestStatus.FINISHED_ABORTED))
