# Intended: buggy: it skips requests whose failed step was still a prefill, believing nothing of theirs was cached yet, but vLLM caches newly full blocks when it schedules the step, so a failed prefill leaves its blocks hashed in the prefix cache.
# Idioms: nested ifs with an explicit skip flag, a dict of counters kept by hand, index loops, many temporary variables, print() debugging; abort only.
from vllm.v1.request import RequestStatus

COUNTS = {"skipped": 0, "cleaned": 0}


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        print("fault handler start:", exc)
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        managers = kvm.coordinator.single_type_managers
        evict_these = set()
        abort_these = []
        for i in range(len(scheduler.running)):
            req = scheduler.running[i]
            abort_these.append(req.request_id)
            skip = False
            # a request that never finished its prompt has no finished blocks in the cache
            if req.num_computed_tokens <= req.num_prompt_tokens:
                skip = True
            if skip == True:
                COUNTS["skipped"] = COUNTS["skipped"] + 1
                print("fault handler: skipping prefill request", req.request_id)
            else:
                COUNTS["cleaned"] = COUNTS["cleaned"] + 1
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                for g in range(len(managers)):
                    blocks = managers[g].req_to_blocks.get(req.request_id)
                    if blocks != None:
                        start = confirmed // managers[g].block_size
                        for j in range(len(blocks)):
                            if j >= start:
                                if blocks[j].is_null == False:
                                    evict_these.add(blocks[j].block_id)
        if len(evict_these) > 0:
            kvm.evict_blocks(evict_these)
        aborted = scheduler.finish_requests(abort_these, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        print("fault handler end:", COUNTS)
