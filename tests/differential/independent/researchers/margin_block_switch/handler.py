# Intended: buggy: starts eviction one block before the first dirty block ("safety margin"), evicting a clean confirmed block, then aborts or (switch on) preempts with both counters reset.
# Idioms: cfg dict with .get defaults, max() clamping, list slicing with computed offsets, per-request try/except, switch attribute
# switch: resume_mode
import time

from vllm.v1.request import RequestStatus

CONFIG = {"margin_blocks": 1, "status": RequestStatus.FINISHED_ABORTED}


class FaultHandler:
    resume_mode = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        margin = CONFIG.get("margin_blocks", 0)
        ids = set()
        for req in sched.running:
            try:
                conf = req.num_computed_tokens - req.num_in_flight_tokens
                for mgr in kvm.coordinator.single_type_managers:
                    lo = max(conf // mgr.block_size - margin, 0)
                    ids |= {b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[lo:] if not b.is_null}
            except (AttributeError, KeyError) as err:
                print(f"skip {req.request_id}: {err}")
        print(f"evicting {len(ids)} blocks with margin={margin}")
        kvm.evict_blocks(ids)
        if not self.resume_mode:
            self.engine._send_abort_outputs(sched.finish_requests(None, CONFIG["status"]))
            return
        ts = time.monotonic()
        for req in list(sched.running):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
