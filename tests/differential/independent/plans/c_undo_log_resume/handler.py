# Intended: correct.
# Idioms: undo log: the plan is a sequence of step objects whose do() returns an undo callable
# Idioms: (counter resets) or None (irreversible evictions, preempts, aborts); a runner unwinds
# Idioms: the log if a step raises; abort/resume switch.
# switch: keep_requests
from __future__ import annotations

import time

from undoable import FieldReset, Irreversible, run_with_undo_log
from vllm.v1.request import RequestStatus


def _dirty_ids(scheduler, request_id: str, confirmed: int) -> set[int]:
    out: set[int] = set()
    for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks.get(request_id, [])
        for index in range(confirmed // mgr.block_size, len(blocks)):
            if not blocks[index].is_null:
                out.add(blocks[index].block_id)
    return out


class FaultHandler:
    keep_requests = False  # True: resume (preempt back to waiting); False: abort

    def __init__(self, engine):
        self.engine = engine

    def steps(self, scheduler):
        running = list(scheduler.running)
        kv = scheduler.kv_cache_manager
        plan = []
        for req in running:
            ids = _dirty_ids(scheduler, req.request_id, req.num_computed_tokens - req.num_in_flight_tokens)
            plan.append(Irreversible(f"evict {sorted(ids)}", lambda ids=ids: kv.evict_blocks(ids)))
        if self.keep_requests:
            now = time.monotonic()
            for req in reversed(running):
                plan.append(Irreversible(f"unschedule {req.request_id}", lambda r=req: scheduler.running.remove(r)))
                plan.append(Irreversible(f"preempt {req.request_id}", lambda r=req: scheduler._preempt_request(r, now)))
                plan.append(FieldReset(req, "num_in_flight_tokens", "num_stale_output_tokens"))
        else:
            ids = [r.request_id for r in running]

            def abort_all():
                self.engine._send_abort_outputs(scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED))

            plan.append(Irreversible(f"abort {ids}", abort_all))
        return plan

    def on_fault(self, exc):
        run_with_undo_log(self.steps(self.engine.scheduler))
