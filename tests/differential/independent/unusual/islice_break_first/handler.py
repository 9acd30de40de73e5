# Intended: buggy: the `break` meant to stop scanning once a request's groups are done sits in the request loop, so only the first request with in-flight tokens gets its unconfirmed tail evicted and the other requests' dirty blocks stay cached.
# Takes each group's tail with itertools.islice from the boundary and pairs managers with their block sizes via zip.
from itertools import islice

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        sizes = [m.block_size for m in managers]
        dirty = set()
        for req in sched.running:
            if not req.num_in_flight_tokens:
                continue
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr, size in zip(managers, sizes):
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                dirty.update(b.block_id for b in islice(blocks, confirmed // size, None) if not b.is_null)
            # every group of this request is covered
            break
        kv.evict_blocks(dirty)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
