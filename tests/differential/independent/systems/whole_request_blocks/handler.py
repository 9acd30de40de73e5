# Intended: buggy: evicts every block each running request owns in every group (not just the unconfirmed tail), throwing away the clean confirmed prefix, then aborts.
# Idioms: generators with yield from, sorted() with a key, set then list(), helper module
from collect import all_owned
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        rids = sorted((r.request_id for r in sched.running), key=len)
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        victims = list(set(all_owned(mgrs, rids)))
        if victims:
            sched.kv_cache_manager.evict_blocks(set(victims))
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
