"""Fluent, chainable recovery plan: every step method returns self, run() executes."""

import time

from vllm.v1.request import RequestStatus


class FaultPlan:
    def __init__(self, scheduler):
        self._sched = scheduler
        self._kv = scheduler.kv_cache_manager
        self._requests = list(scheduler.running)
        self._steps = []

    # -- selection -------------------------------------------------------
    def where(self, predicate):
        self._requests = [r for r in self._requests if predicate(r)]
        return self

    # -- steps (queued, run in order by run()) -----------------------------
    def evictUnconfirmedTail(self):
        self._steps.append(self._evictTail)
        return self

    def abort(self, status=RequestStatus.FINISHED_ABORTED):
        self._steps.append(lambda reqs: self._sched.finish_requests([r.request_id for r in reqs], status))
        return self

    def preempt(self):
        self._steps.append(self._preemptAll)
        return self

    def clearInFlight(self):
        def clear(reqs):
            for r in reqs:
                r.num_in_flight_tokens = 0
                r.num_stale_output_tokens = 0

        self._steps.append(clear)
        return self

    def run(self):
        results = [step(self._requests) for step in self._steps]
        return results[-1] if results else None

    # -- internals ---------------------------------------------------------
    def _blocksPerGroup(self, req):
        # KVCacheBlocks.blocks: one sequence of blocks per KV-cache group.
        groups = self._kv.get_blocks(req.request_id).blocks
        sizes = self._kv.coordinator.group_block_sizes
        return zip(groups, sizes)

    def _evictTail(self, reqs):
        doomed = set()
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for blocks, block_size in self._blocksPerGroup(req):
                doomed.update(b.block_id for b in list(blocks)[confirmed // block_size:] if not b.is_null)
        if doomed:
            self._kv.evict_blocks(doomed)
        return doomed

    def _preemptAll(self, reqs):
        ts = time.monotonic()
        for req in reversed(reqs):
            self._sched.running.remove(req)
            self._sched._preempt_request(req, ts)
        return reqs
