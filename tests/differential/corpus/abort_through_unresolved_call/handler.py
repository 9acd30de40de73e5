# Intended: correct. Evicts the unconfirmed tail in every KV-cache group, then
# aborts through a scheduler method looked up by a computed name. A linter cannot
# resolve that call: it must take it as having no effect (and say so under
# --verbose), not guess that it frees requests or that it evicts.
from vllm.v1.request import RequestStatus

ABORT = "_".join(("finish", "requests"))


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        ids = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
        kvm.evict_blocks(ids)
        getattr(sched, ABORT)(None, RequestStatus.FINISHED_ABORTED)
