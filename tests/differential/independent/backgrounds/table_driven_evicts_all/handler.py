# Intended: buggy: the table's "evict_from" entry starts at block 0, so every block of each running request is evicted, confirmed prefix included (over-eviction), before the abort.
# Idioms: table-driven: a POLICY dict of lambdas and flags, dispatch dict for actions, small generic loop reading the table.
from __future__ import annotations

from vllm.v1.request import RequestStatus

POLICY = {
    "evict": True,
    "evict_from": lambda req, block_size: 0,
    "skip_null": True,
    "action": "abort",
}

ACTIONS = {
    "abort": lambda engine: engine._send_abort_outputs(
        engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    ),
}


def block_ids_to_evict(sched, policy) -> set[int]:
    out: set[int] = set()
    for req in sched.running:
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            start = policy["evict_from"](req, mgr.block_size)
            for blk in mgr.req_to_blocks.get(req.request_id, [])[start:]:
                if policy["skip_null"] and blk.is_null:
                    continue
                out.add(blk.block_id)
    return out


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc) -> None:
        sched = self.engine.scheduler
        if POLICY["evict"]:
            ids = block_ids_to_evict(sched, POLICY)
            if ids:
                sched.kv_cache_manager.evict_blocks(ids)
        ACTIONS[POLICY["action"]](self.engine)
