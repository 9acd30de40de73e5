# Intended: correct.
# Gathers tail ids in a comprehension whose condition binds each group's block list with a walrus, drains a request queue with `while (req := ...) is not None`, and wraps an optional abort notification in contextlib.suppress.
# switch: resume
import time
from contextlib import suppress

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = True

    @staticmethod
    def _dirty(kv, req):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        return {
            blk.block_id
            for mgr in kv.coordinator.single_type_managers
            if (blocks := mgr.req_to_blocks.get(req.request_id))
            for blk in blocks[confirmed // mgr.block_size:]
            if not blk.is_null
        }

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        queue = iter(list(sched.running))
        ts = time.monotonic()
        while (req := next(queue, None)) is not None:
            if ids := self._dirty(kv, req):
                kv.evict_blocks(ids)
            if self.resume:
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        if not self.resume:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            with suppress(AttributeError):
                self.engine._send_abort_outputs(aborted)
