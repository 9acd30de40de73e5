# Intended: correct. Plans the unconfirmed-tail eviction per KV-cache group in one module, applies it in another, then aborts or (switch on) preempts every running request and clears both in-flight counters.
# Idioms: defaultdict(list) keyed by group, helper functions split over plan.py and apply.py, kwargs config, switch attribute, f-string summary
# switch: resume
import time

from vllm.v1.request import RequestStatus

from apply import apply_plan
from plan import build_plan


class FaultHandler:
    resume = False

    def __init__(self, engine, **opts):
        self.engine = engine
        self.opts = opts

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        plan = build_plan(sched.running, managers)
        summary = apply_plan(sched.kv_cache_manager, plan, dry_run=self.opts.get("dry_run", False))
        print(f"eviction plan applied: {summary}")
        if self.resume:
            stamp = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, stamp)
                req.num_in_flight_tokens, req.num_stale_output_tokens = 0, 0
        else:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
