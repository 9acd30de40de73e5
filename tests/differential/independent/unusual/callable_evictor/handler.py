# Intended: correct.
# The evictor is a __call__-able object holding zip()ped (manager, block size) pairs, mapped over the running requests with a zero-length deque; block indices come from enumerate(start=first).
from collections import deque

from vllm.v1.request import RequestStatus


class TailEvictor:
    def __init__(self, kv):
        self.kv = kv
        managers = kv.coordinator.single_type_managers
        self.groups = list(zip(managers, [m.block_size for m in managers]))
        self.evicted = 0

    def __call__(self, request):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        ids = set()
        for manager, block_size in self.groups:
            first = confirmed // block_size
            blocks = manager.req_to_blocks.get(request.request_id, [])
            for index, block in enumerate(blocks[first:], start=first):
                assert index >= first
                if block.is_null:
                    continue
                ids.add(block.block_id)
        if ids:
            self.kv.evict_blocks(ids)
            self.evicted += len(ids)
        return ids


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.last_evicted = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict = TailEvictor(sched.kv_cache_manager)
        deque(map(evict, tuple(sched.running)), maxlen=0)
        self.last_evicted = evict.evicted
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
