# Intended: buggy: evicts every block of every running request in every KV-cache group (the clean confirmed prefix too), not just the unconfirmed tail, then aborts.
# Idioms: functools.reduce over per-group lists, map with lambda, Counter summary, module-level cache of the last eviction
import functools
from collections import Counter

from vllm.v1.request import RequestStatus

LAST_EVICTION = {}  # module-level cache for debugging


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        running_ids = [r.request_id for r in sched.running]
        per_group = [
            [b.block_id for rid in running_ids for b in m.req_to_blocks.get(rid, []) if not b.is_null]
            for m in kvm.coordinator.single_type_managers
        ]
        # "safer" to drop everything the faulted requests touched
        ids = functools.reduce(lambda a, b: a + b, per_group, [])
        LAST_EVICTION.clear()
        LAST_EVICTION.update(Counter(map(lambda gi: f"group{gi}", (i for i, g in enumerate(per_group) for _ in g))))
        print(f"evicting all {len(ids)} blocks: {LAST_EVICTION}")
        kvm.evict_blocks(set(ids))
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
