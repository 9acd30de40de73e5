# Intended: buggy: instead of evicting the lost step's blocks it resets the whole prefix cache while the running requests still hold their blocks, which vLLM refuses (it only logs a warning and returns False), so nothing is evicted and the dirty blocks stay cached.
# Idioms: one straight-line method, a return value stored in a temporary and only printed, explicit == False comparison, a module-level counter with a global statement; abort only.
from vllm.v1.request import RequestStatus

RESETS_TRIED = 0


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        global RESETS_TRIED
        print("got a fault:", exc)
        scheduler = self.engine.scheduler
        # the KV of the failed step is garbage, so just wipe the prefix cache
        RESETS_TRIED = RESETS_TRIED + 1
        ok = scheduler.kv_cache_manager.reset_prefix_cache()
        if ok == False:
            print("reset_prefix_cache returned False (try number", RESETS_TRIED, ")")
        request_ids = []
        for r in scheduler.running:
            request_ids.append(r.request_id)
        aborted = scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        print("aborted", len(aborted), "requests")
