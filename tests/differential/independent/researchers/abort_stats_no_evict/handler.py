# Intended: buggy: aborts every request after collecting block statistics but never evicts the unconfirmed tail, so the dirty blocks keep their prefix-cache hashes.
# Idioms: collections.Counter of block counts per request, defaultdict(list) stats table, f-string report, module-level stats cache
from collections import Counter, defaultdict

from vllm.v1.request import RequestStatus

FAULT_LOG = defaultdict(list)  # global: exception type -> list of per-fault stats


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        held = Counter()
        for mgr in mgrs:
            for rid, blocks in mgr.req_to_blocks.items():
                held[rid] += len(blocks)
        FAULT_LOG[type(exc).__name__].append(dict(held))
        print(f"fault: {exc}; blocks held per request: {dict(held)}")
        # free everything; the allocator gets the blocks back
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        print(f"aborted {[r.request_id for r in aborted]}")
