# Intended: correct. Keeps the KV-cache manager's evict_blocks in a local alias
# and calls it through the alias on the unconfirmed tail before aborting.
import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _tail_ids(self, sched):
        kvm = sched.kv_cache_manager
        out = set()
        for req in sched.running:
            start_tok = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                tail = mgr.req_to_blocks[req.request_id][start_tok // mgr.block_size:]
                out.update(b.block_id for b in tail if not b.is_null)
        return out

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict = sched.kv_cache_manager.evict_blocks
        dirty = self._tail_ids(sched)
        logger.warning("fault %r: dropping %d dirty blocks", exc, len(dirty))
        evict(dirty)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
