# Intended: correct.
# Idioms: a for/else that searches for the first block ending past the confirmed token, manual index counter beside the for, try/except/else/finally around the preempt or abort, flag variables, an abort/resume switch attribute.
# switch: resume_requests
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine
        self.failed_requeues = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        groups = kv.coordinator.single_type_managers

        victims = []
        for req in sched.running:
            victims.append(req)

        dirty = set()
        for req in victims:
            ok_tokens = req.num_computed_tokens - req.num_in_flight_tokens
            gi = 0
            while gi < len(groups):
                bs = groups[gi].block_size
                held = groups[gi].req_to_blocks.get(req.request_id, [])
                start = 0
                k = 0
                for blk in held:
                    # block k holds tokens [k*bs, (k+1)*bs)
                    if (k + 1) * bs > ok_tokens:
                        start = k
                        break
                    k = k + 1
                else:
                    start = len(held)
                while start < len(held):
                    if not held[start].is_null:
                        dirty.add(held[start].block_id)
                    start = start + 1
                gi = gi + 1

        if dirty:
            kv.evict_blocks(dirty)

        if not self.resume_requests:
            rids = []
            for req in victims:
                rids.append(req.request_id)
            aborted = None
            try:
                aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
            except Exception:
                logger.exception("abort after fault failed")
                raise
            else:
                self.engine._send_abort_outputs(aborted)
            finally:
                logger.warning("fault %s: evicted %d tail blocks", exc, len(dirty))
            return

        stamp = time.monotonic()
        idx = len(victims) - 1
        while idx >= 0:
            req = victims[idx]
            requeued = False
            try:
                sched.running.remove(req)
            except ValueError:
                # already gone from the running list: nothing to requeue
                self.failed_requeues = self.failed_requeues + 1
            else:
                sched._preempt_request(req, stamp)
                requeued = True
            finally:
                idx = idx - 1
            if requeued:
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
