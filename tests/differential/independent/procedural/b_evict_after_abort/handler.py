# Intended: buggy: it aborts first and only then looks up each request's blocks, but finishing a request frees its blocks and drops its entry from req_to_blocks, so nothing is found and every dirty tail block stays in the prefix cache.
# Idioms: abort with finish_requests(None, ...) first, then a while loop over the returned requests with a manual counter, a per-group inner loop, try/finally around the eviction, a counter of evicted blocks kept on the instance.
import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.total_evicted = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers

        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

        dirty = set()
        try:
            i = 0
            while i < len(aborted):
                req = aborted[i]
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                g = 0
                while g < len(mgrs):
                    blocks = mgrs[g].req_to_blocks.get(req.request_id, [])
                    j = confirmed // mgrs[g].block_size
                    while j < len(blocks):
                        if not blocks[j].is_null:
                            dirty.add(blocks[j].block_id)
                        j = j + 1
                    g = g + 1
                i = i + 1
            if dirty:
                kvm.evict_blocks(dirty)
        finally:
            self.total_evicted = self.total_evicted + len(dirty)
            log.warning("fault %s: aborted %d, evicted %d", exc, len(aborted), len(dirty))
