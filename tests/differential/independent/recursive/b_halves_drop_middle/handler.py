# Intended: buggy: the divide-and-conquer split recurses on requests[:mid] and requests[mid + 1:] without visiting requests[mid], so the middle request of every sub-list (with two running requests, the second) keeps its dirty blocks cached.
# Idioms: divide-and-conquer over the running list (halves, single-request base case), lists of block ids concatenated on the way up, recursion over groups; aborts.
"""Abort-on-fault handler that collects unconfirmed KV tails by splitting the request list."""

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = list(sched.kv_cache_manager.coordinator.single_type_managers)
        running = list(sched.running)
        ids = self._split(running, managers)
        if ids:
            sched.kv_cache_manager.evict_blocks(set(ids))
        aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _split(self, reqs, managers):
        if not reqs:
            return []
        if len(reqs) == 1:
            return self._one(reqs[0], managers)
        mid = len(reqs) // 2
        return self._split(reqs[:mid], managers) + self._split(reqs[mid + 1 :], managers)

    def _one(self, req, managers):
        if not managers:
            return []
        m = managers[0]
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        here = [b.block_id for b in m.req_to_blocks.get(req.request_id, [])[confirmed // m.block_size :] if not b.is_null]
        return here + self._one(req, managers[1:])
