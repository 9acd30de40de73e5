# Intended: correct. Uses map and filter with lambdas to pick, in every KV-cache group, the non-null blocks at or past each running request's confirmed boundary, evicts them, then aborts all requests.
# Idioms: map/filter with lambdas, nested list flattening with sum(..., []), enumerate slicing by computed offsets, logging
import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _tail(self, mgr, req):
        cut = (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size
        blocks = mgr.req_to_blocks.get(req.request_id, [])
        keep = filter(lambda ib: ib[0] >= cut and not ib[1].is_null, enumerate(blocks))
        return list(map(lambda ib: ib[1].block_id, keep))

    def on_fault(self, exc):
        sched = self.engine.scheduler
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        running = list(sched.running)
        lists = [self._tail(m, r) for m in mgrs for r in running]
        flat = sum(lists, [])
        logger.warning("fault %s: evicting %d blocks from %d requests", exc, len(flat), len(running))
        sched.kv_cache_manager.evict_blocks(set(flat))
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
