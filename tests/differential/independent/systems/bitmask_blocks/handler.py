# Intended: correct. Computes each request's first unconfirmed block with a correctly derived shift (or division), evicts the tail in every KV-cache group, then aborts or preempts with counters zeroed.
# Idioms: bit arithmetic with a verified power-of-two shift, __slots__ helper class, dict cache of per-group math, sets to list, reversed preempt loop, helper module
# switch: keep_requests
import time

from blockmath import BlockMath
from vllm.v1.request import RequestStatus


class FaultHandler:
    keep_requests = False

    def __init__(self, engine):
        self.engine = engine
        self._math = {}

    def _math_for(self, size):
        m = self._math.get(size)
        if m is None:
            m = BlockMath(size)
            self._math[size] = m
        return m

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        hits = set()
        for req_obj in sched.running:
            boundary = req_obj.num_computed_tokens - req_obj.num_in_flight_tokens
            for mgr in managers:
                first = self._math_for(mgr.block_size).index_of(boundary)
                row = mgr.req_to_blocks.get(req_obj.request_id, ())
                for blk in row[first:]:
                    if blk.is_null:
                        continue
                    hits.add(blk.block_id)
        if hits:
            sched.kv_cache_manager.evict_blocks(set(list(hits)))
        if not self.keep_requests:
            self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        now = time.monotonic()
        queue = list(sched.running)
        sched.running.clear()
        for req_obj in reversed(queue):
            sched._preempt_request(req_obj, now)
            req_obj.num_in_flight_tokens = 0
            req_obj.num_stale_output_tokens = 0
