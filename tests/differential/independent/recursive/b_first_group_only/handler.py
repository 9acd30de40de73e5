# Intended: buggy: only the first KV-cache group's tail is evicted (block ids are read from get_block_ids(...)[0]), so with a second group (sliding window) the dirty blocks of that group stay in the prefix cache.
# Idioms: head/tail recursion over the running requests returning a merged set on the way up, recursive slice of the tail; aborts per request after evicting.
"""Fault handler: evict the unconfirmed tail of each running request, then abort it."""

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        block_size = kv.coordinator.single_type_managers[0].block_size
        running = list(sched.running)
        dirty = self._dirty(kv, running, block_size)
        if dirty:
            kv.evict_blocks(dirty)
        self.engine._send_abort_outputs(
            sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        )

    def _dirty(self, kv, requests, block_size):
        if not requests:
            return set()
        head, tail = requests[0], requests[1:]
        ids = kv.get_block_ids(head.request_id)[0]
        start = (head.num_computed_tokens - head.num_in_flight_tokens) // block_size
        return set(ids[start:]) | self._dirty(kv, tail, block_size)
