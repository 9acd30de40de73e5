# Intended: buggy: the first dirty block is computed by rounding the confirmed boundary up, so the block that holds the boundary (partly confirmed, partly written by the lost step) is kept in the prefix cache.
# Idioms: memoised recursive block arithmetic (lru_cache, recursive ceil-division) in a helper module, index recursion over requests and over groups with a set accumulator; aborts.
"""Abort-on-fault handler evicting what it takes to be the unconfirmed KV tail."""

from vllm.v1.request import RequestStatus

from blockmath import first_unconfirmed_block


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        running = list(sched.running)
        ids = set()
        self._requests(running, 0, managers, ids)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _requests(self, running, i, managers, ids):
        if i == len(running):
            return
        self._groups(running[i], managers, 0, ids)
        self._requests(running, i + 1, managers, ids)

    def _groups(self, req, managers, g, ids):
        if g == len(managers):
            return
        m = managers[g]
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        start = first_unconfirmed_block(confirmed, m.block_size)
        ids.update(b.block_id for b in m.req_to_blocks.get(req.request_id, [])[start:] if not b.is_null)
        self._groups(req, managers, g + 1, ids)
