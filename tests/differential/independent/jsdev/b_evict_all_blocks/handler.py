# Intended: buggy: it evicts every block the request holds instead of only the unconfirmed tail, so the clean prefix computed by earlier successful steps is thrown out of the prefix cache and must be recomputed.
# Idioms: flatMap emulated with a nested comprehension, a Set built from a spread of lists,
# destructuring of get_block_ids() per group, arrow lambdas, ternary dispatch; abort/resume
# switch.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus

flatMap = lambda fn, xs: [y for x in xs for y in fn(x)]  # noqa: E731


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = [*sched.running]
        if not reqs:
            return
        kv = sched.kv_cache_manager
        null_id = kv.block_pool.null_block.block_id
        # The lost step may have touched any block: drop them all, the KV is recomputed anyway.
        allIds = flatMap(lambda r: [bid for group in kv.get_block_ids(r.request_id) for bid in group], reqs)
        dirty = {*allIds} - {null_id}
        dirty and kv.evict_blocks(dirty)
        (self._resume if self.RESUME else self._abort)(sched, reqs)

    def _abort(self, sched, reqs):
        aborted = sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _resume(sched, reqs):
        ts = time.monotonic()
        for r in reversed(reqs):
            sched.running.remove(r)
            sched._preempt_request(r, ts)
            r.num_in_flight_tokens = r.num_stale_output_tokens = 0
