# Intended: buggy: it starts evicting one block before the boundary block (a "safety margin" clamped with max(0, ...)), so a clean block confirmed by an earlier successful step is evicted too and the resumed request loses its reuse.
# Clamps the first block with max/min, walks blocks with enumerate(start=...), and drives the release through a conditional-expression method choice.
# switch: resume
import time

from vllm.v1.request import RequestStatus


def margin_tail(blocks, confirmed, block_size, *, margin=1):
    first = max(0, min(len(blocks), confirmed // block_size - margin))
    return [b.block_id for i, b in enumerate(blocks[first:], start=first) if i >= first and not b.is_null]


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        dirty = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                dirty.update(margin_tail(mgr.req_to_blocks.get(req.request_id, []), confirmed, mgr.block_size))
        kv.evict_blocks(dirty)
        release = self._requeue if self.resume else self._abort
        release(sched)

    def _requeue(self, sched):
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

    def _abort(self, sched):
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
