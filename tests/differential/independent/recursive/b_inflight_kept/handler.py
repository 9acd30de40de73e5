# Intended: buggy: on resume it clears num_stale_output_tokens after the preempt but never resets num_in_flight_tokens, so the requeued request's confirmed boundary is off by the lost step (and the next preempt marks that many tokens stale again); the abort path is right.
# Idioms: index recursion over the running list with eviction then abort/preempt per request at each level, recursion over groups with a list accumulator; abort or resume.
# switch: RESUME
"""Fault handler: per request, evict the unconfirmed KV tail, then abort or requeue it."""

import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._handle(sched, list(sched.running), len(sched.running) - 1, time.monotonic(), [])

    def _handle(self, sched, reqs, i, ts, aborted):
        if i < 0:
            if aborted:
                self.engine._send_abort_outputs(aborted)
            return
        req = reqs[i]
        tail = self._tail(req, sched.kv_cache_manager.coordinator.single_type_managers, 0, [])
        if tail:
            sched.kv_cache_manager.evict_blocks(set(tail))
        if self.RESUME:
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_stale_output_tokens = 0
        else:
            aborted.extend(sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED))
        self._handle(sched, reqs, i - 1, ts, aborted)

    def _tail(self, req, managers, g, acc):
        if g == len(managers):
            return acc
        m = managers[g]
        start = (req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size
        acc.extend(b.block_id for b in m.req_to_blocks.get(req.request_id, [])[start:] if not b.is_null)
        return self._tail(req, managers, g + 1, acc)
