# Intended: correct. Evicts the unconfirmed tail of every running request in every KV-cache group, then aborts or preempts; on resume a try/finally guarantees in-flight and stale counters are cleared after each preempt.
# Idioms: try/finally cleanup, multiple return values unpacked by the caller, guard clauses, enumerate, reversed
# switch: resume
import time

from vllm.v1.request import RequestStatus


def tail_bounds(request, block_size, chain_len):
    settled = request.num_computed_tokens - request.num_in_flight_tokens
    lo = settled // block_size
    hi = chain_len
    return lo, hi, lo < hi


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def _dirty_ids(self, sched):
        found = set()
        layers = sched.kv_cache_manager.coordinator.single_type_managers
        for rq in sched.running:
            for _idx, layer in enumerate(layers):
                chain = layer.req_to_blocks.get(rq.request_id)
                if not chain:
                    continue
                lo, hi, any_left = tail_bounds(rq, layer.block_size, len(chain))
                if not any_left:
                    continue
                for pos in range(lo, hi):
                    if chain[pos].is_null:
                        continue
                    found.add(chain[pos].block_id)
        return found

    def on_fault(self, exc):
        sched = self.engine.scheduler
        doomed = self._dirty_ids(sched)
        if doomed:
            sched.kv_cache_manager.evict_blocks(doomed)
        if not self.resume:
            out = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(out)
            return
        t = time.monotonic()
        for rq in reversed(list(sched.running)):
            sched.running.remove(rq)
            try:
                sched._preempt_request(rq, t)
            finally:
                rq.num_in_flight_tokens = 0
                rq.num_stale_output_tokens = 0
