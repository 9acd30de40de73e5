# Intended: buggy: to be safe it evicts every block the request holds, including the clean prefix confirmed by earlier successful steps, so that prefix is lost from the prefix cache and has to be recomputed.
# Idioms: a module-level list of all evicted ids kept across faults, nested for loops over a manual list, explicit == False comparisons, print() debugging; abort only.
from vllm.v1.request import RequestStatus

EVICTED_SO_FAR = []


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        print("fault:", exc)
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        ids_to_evict = set()
        request_ids = []
        for req in scheduler.running:
            request_ids.append(req.request_id)
            for manager in kvm.coordinator.single_type_managers:
                blocks = manager.req_to_blocks.get(req.request_id, [])
                # we don't know which blocks the failed step wrote, so drop all of them
                for block in blocks:
                    if block.is_null == False:
                        ids_to_evict.add(block.block_id)
        for i in ids_to_evict:
            EVICTED_SO_FAR.append(i)
        print("fault: evicting", len(ids_to_evict), "blocks,", len(EVICTED_SO_FAR), "since start")
        if len(ids_to_evict) > 0:
            kvm.evict_blocks(ids_to_evict)
        aborted = scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
