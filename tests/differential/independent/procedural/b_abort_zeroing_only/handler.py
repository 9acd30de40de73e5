# Intended: buggy: on the abort path it only records the unconfirmed tail for KV zeroing instead of evicting it, and zeroing does not remove a block's hash (and is a no-op unless the model needs zeroing), so the dirty blocks stay in the prefix cache; only the resume path evicts.
# Idioms: two module-level functions with positional arguments, one per path, block-aligned start token computed inline with %, while loops with manual counters, a flag set in the loop, an abort/resume switch.
# switch: RESUME_ON_FAULT
import time

from vllm.v1.request import RequestStatus


def scrub_for_abort(kvm, mgrs, rid, computed, in_flight):
    """Mark the tail for zeroing before the request is freed."""
    first = computed - in_flight
    if first < 0:
        first = 0
    # record_blocks_for_zeroing wants a block aligned start in every group
    g = 0
    aligned = first
    while g < len(mgrs):
        bs = mgrs[g].block_size
        if aligned % bs != 0:
            aligned = aligned - aligned % bs
        g += 1
    kvm.record_blocks_for_zeroing(rid, aligned)


def evict_for_resume(kvm, mgrs, rid, computed, in_flight, out_ids):
    first = computed - in_flight
    if first < 0:
        first = 0
    g = 0
    while g < len(mgrs):
        held = mgrs[g].req_to_blocks.get(rid)
        if held:
            j = first // mgrs[g].block_size
            while j < len(held):
                if not held[j].is_null:
                    out_ids.add(held[j].block_id)
                j += 1
        g += 1


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        reqs = []
        i = 0
        while i < len(sched.running):
            reqs.append(sched.running[i])
            i += 1

        if not self.RESUME_ON_FAULT:
            rids = []
            i = 0
            while i < len(reqs):
                r = reqs[i]
                scrub_for_abort(kvm, mgrs, r.request_id, r.num_computed_tokens, r.num_in_flight_tokens)
                rids.append(r.request_id)
                i += 1
            aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return

        ids = set()
        touched = False
        i = 0
        while i < len(reqs):
            r = reqs[i]
            evict_for_resume(kvm, mgrs, r.request_id, r.num_computed_tokens, r.num_in_flight_tokens, ids)
            touched = True
            i += 1
        if touched and ids:
            kvm.evict_blocks(ids)
        ts = time.monotonic()
        i = len(reqs) - 1
        while i >= 0:
            sched.running.remove(reqs[i])
            sched._preempt_request(reqs[i], ts)
            reqs[i].num_in_flight_tokens = 0
            reqs[i].num_stale_output_tokens = 0
            i -= 1
