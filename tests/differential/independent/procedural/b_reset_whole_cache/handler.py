# Intended: buggy: it tries to drop the whole prefix cache with KVCacheManager.reset_prefix_cache while the running requests still hold their blocks, which refuses and returns False, so nothing is evicted and the dirty tail blocks stay cached after the abort.
# Idioms: try/except/else/finally around the reset, a status flag checked afterwards, early return when nothing runs, a module-level list of fault records, a while loop with a manual counter to collect request ids.
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)

FAULT_LOG = []


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if len(sched.running) == 0:
            FAULT_LOG.append((time.time(), type(exc).__name__, 0, False))
            return
        rids = []
        i = 0
        while i < len(sched.running):
            rids.append(sched.running[i].request_id)
            i = i + 1

        cleared = False
        try:
            # nothing computed by the failed step may be reused: start clean
            ok = sched.kv_cache_manager.reset_prefix_cache()
        except Exception:
            logger.exception("prefix cache reset failed")
        else:
            cleared = ok
        finally:
            aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        if not cleared:
            logger.warning("prefix cache not reset after fault %s", exc)
        FAULT_LOG.append((time.time(), type(exc).__name__, len(aborted), cleared))
