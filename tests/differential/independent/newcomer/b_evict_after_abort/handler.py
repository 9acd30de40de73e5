# Intended: buggy: it aborts the requests first and only then looks up their blocks in req_to_blocks, but finishing a request frees its blocks and pops its entry, so the lookup finds empty lists and the dirty tail stays in the prefix cache.
# Idioms: keep a copy of the running list, abort, then loop over the copy by index; explicit len(x) == 0 checks, temporary variables, print() debugging, a hand-kept counter of evicted blocks; abort only.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.evicted_total = 0

    def on_fault(self, exc):
        print("fault handler:", exc)
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        saved = []
        for i in range(len(scheduler.running)):
            saved.append(scheduler.running[i])
        names = []
        for i in range(len(saved)):
            names.append(saved[i].request_id)

        # abort first so nothing new gets scheduled on the broken engine
        aborted = scheduler.finish_requests(names, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

        # now clean the cache for the requests we aborted
        to_evict = set()
        managers = kvm.coordinator.single_type_managers
        for i in range(len(saved)):
            req = saved[i]
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for g in range(len(managers)):
                blocks = managers[g].req_to_blocks[req.request_id]
                if len(blocks) == 0:
                    print("fault handler: no blocks for", req.request_id, "in group", g)
                    continue
                first = confirmed // managers[g].block_size
                for j in range(first, len(blocks)):
                    if blocks[j].is_null == False:
                        to_evict.add(blocks[j].block_id)
        if len(to_evict) > 0:
            kvm.evict_blocks(to_evict)
            self.evicted_total = self.evicted_total + len(to_evict)
        print("fault handler: evicted", len(to_evict), "total", self.evicted_total)
