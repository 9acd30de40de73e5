# Intended: buggy: unions every block id the failed requests hold (the whole request, all groups) instead of only the unconfirmed tail, so clean, confirmed prefix blocks are evicted too and lose their prefix-cache reuse.
# Builds the id set with functools.reduce(operator.or_) over map(lambda ...) of each request's per-group id lists.
import functools
import operator

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        null_id = kv.block_pool.null_block.block_id
        per_request = map(
            lambda req: functools.reduce(operator.or_, map(set, kv.get_block_ids(req.request_id)), set()),
            sched.running,
        )
        touched = functools.reduce(operator.or_, per_request, set()) - {null_id}
        if touched:
            kv.evict_blocks(touched)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
