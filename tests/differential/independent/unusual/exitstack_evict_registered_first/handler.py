# Intended: buggy: the eviction is registered on the ExitStack before the release, so LIFO unwinding frees (aborts or preempts) the requests first and the eviction then reads their already-popped block lists and evicts nothing; the dirty tail stays cached on both paths.
# Uses contextlib.ExitStack.callback to schedule the eviction and the abort/preempt as cleanup steps.
# switch: resume
import time
from contextlib import ExitStack

from vllm.v1.request import RequestStatus


def evict_unconfirmed(kv, requests):
    ids = set()
    for req in requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            for blk in mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size:]:
                if not blk.is_null:
                    ids.add(blk.block_id)
    kv.evict_blocks(ids)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        with ExitStack() as stack:
            # step 1: drop the dirty tail, step 2: release the requests
            stack.callback(evict_unconfirmed, sched.kv_cache_manager, victims)
            stack.callback(self._release, sched, victims)

    def _release(self, sched, victims):
        if self.resume:
            ts = time.monotonic()
            for req in reversed(victims):
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            ids = [r.request_id for r in victims]
            self.engine._send_abort_outputs(sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED))
