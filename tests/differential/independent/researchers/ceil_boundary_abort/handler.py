# Intended: buggy: the first evicted block is rounded up (ceil(confirmed / block_size)) instead of down, so a partly confirmed block that the lost step filled keeps its hash; then aborts.
# Idioms: helper arithmetic module, dict keyed by request id of lists, per-request try/except, f-string logging
from vllm.v1.request import RequestStatus

from tailmath import n_blocks


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.errors = {}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        by_req = {}
        for req in sched.running:
            try:
                good = req.num_computed_tokens - req.num_in_flight_tokens
                ids = []
                for mgr in kvm.coordinator.single_type_managers:
                    keep = n_blocks(good, mgr.block_size)  # blocks covering confirmed tokens
                    ids += [b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[keep:] if not b.is_null]
                by_req[req.request_id] = ids
            except Exception as e:  # noqa: BLE001
                self.errors[req.request_id] = repr(e)
                print(f"  {req.request_id}: {e!r}")
        all_ids = set().union(*by_req.values()) if by_req else set()
        print(f"evicting {len(all_ids)}: {by_req}")
        kvm.evict_blocks(all_ids)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
