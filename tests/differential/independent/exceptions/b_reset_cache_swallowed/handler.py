# Intended: buggy: instead of evicting the unconfirmed tail it resets the whole prefix cache while the running requests still hold their blocks; vLLM refuses that reset (it returns False), the refusal is logged and swallowed, and the requests are then aborted with the failed step's blocks still cached.
# Idioms: CacheResetRefused raised from a helper and caught with try/except/else; bounded retry of the reset; contextlib.suppress for the notification hook; errors logged and swallowed.
import logging
from contextlib import suppress

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class CacheResetRefused(Exception):
    pass


def reset_prefix_cache(scheduler, attempts=2):
    for _ in range(attempts):
        if scheduler.kv_cache_manager.reset_prefix_cache():
            return
    raise CacheResetRefused("KV cache manager refused to reset the prefix cache")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        try:
            # Cached KV may be garbage after a failed step: forget all of it.
            reset_prefix_cache(sched)
        except CacheResetRefused as err:
            logger.warning("%s; continuing with the abort", err)
        else:
            logger.info("prefix cache cleared after %r", exc)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        with suppress(AttributeError):
            self.engine._send_abort_outputs(aborted)
