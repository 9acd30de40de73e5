# Intended: correct.
# functools.singledispatch picks a recovery policy by exception type (RuntimeError: resume, anything else: abort); both policies call a classmethod that evicts the unconfirmed tail first.
import functools
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    @classmethod
    def _scrub(cls, sched):
        kv = sched.kv_cache_manager
        for req in sched.running:
            kv.evict_blocks(cls._tail_ids(kv, req))

    @staticmethod
    def _tail_ids(kv, req):
        settled = req.num_computed_tokens - req.num_in_flight_tokens
        return {
            blk.block_id
            for mgr in kv.coordinator.single_type_managers
            for blk in mgr.req_to_blocks.get(req.request_id, ())[settled // mgr.block_size:]
            if not blk.is_null
        }

    @functools.singledispatchmethod
    def _recover(self, exc, sched):
        FaultHandler._scrub(sched)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    @_recover.register
    def _(self, exc: RuntimeError, sched):
        # Collective failures are transient: keep the requests.
        self._scrub(sched)
        ts = time.monotonic()
        batch, sched.running = sched.running, []
        for req in reversed(batch):
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = req.num_stale_output_tokens = 0

    def on_fault(self, exc):
        self._recover(exc, self.engine.scheduler)
