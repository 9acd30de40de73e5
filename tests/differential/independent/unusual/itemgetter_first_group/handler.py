# Intended: buggy: evicts the unconfirmed tail only in the first KV-cache group (itemgetter(0) of the per-group id lists), so with full + sliding-window attention the sliding group's dirty tail stays cached.
# Reads its policy from a types.SimpleNamespace and picks the group's id list and block size with operator.itemgetter.
# switch: resume
import time
from operator import itemgetter
from types import SimpleNamespace

from vllm.v1.request import RequestStatus

_primary = itemgetter(0)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.opts = SimpleNamespace(resume=False, notify=True)

    @property
    def resume(self):
        return self.opts.resume

    @resume.setter
    def resume(self, value):
        self.opts.resume = bool(value)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        block_size = _primary(kv.coordinator.single_type_managers).block_size
        dirty = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids = _primary(kv.get_block_ids(req.request_id))
            dirty.update(ids[confirmed // block_size:])
        dirty.discard(kv.block_pool.null_block.block_id)
        kv.evict_blocks(dirty)
        if self.opts.resume:
            ts = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            if self.opts.notify:
                self.engine._send_abort_outputs(aborted)
