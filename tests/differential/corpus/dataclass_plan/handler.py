# Intended: correct.
# Builds a FaultPlan dataclass with the request ids and the dirty block ids, evicts them, then aborts the planned ids or preempts them (resetting both counters after the preempt).
# switch: resume
import time
from dataclasses import dataclass, field

from vllm.v1.request import RequestStatus


@dataclass
class FaultPlan:
    request_ids: list[str] = field(default_factory=list)
    dirty_block_ids: set[int] = field(default_factory=set)


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def _plan(self, scheduler) -> FaultPlan:
        plan = FaultPlan()
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        for req in scheduler.running:
            plan.request_ids.append(req.request_id)
            confirmed_tokens = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in managers:
                for blk in mgr.req_to_blocks[req.request_id][confirmed_tokens // mgr.block_size:]:
                    if not blk.is_null:
                        plan.dirty_block_ids.add(blk.block_id)
        return plan

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        plan = self._plan(scheduler)
        scheduler.kv_cache_manager.evict_blocks(plan.dirty_block_ids)
        if self.resume:
            by_id = {r.request_id: r for r in scheduler.running}
            scheduler.running = [r for r in scheduler.running if r.request_id not in by_id]
            ts = time.monotonic()
            for rid in reversed(plan.request_ids):
                req = by_id[rid]
                scheduler._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = scheduler.finish_requests(plan.request_ids, RequestStatus.FINISHED_ABORTED)
            aborted += scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
