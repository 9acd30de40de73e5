# Intended: buggy: on resume it preempts with drop_stale_output=True, so the resumed request is marked to throw away its next output frame as stale, but the failed step's frame never arrives and the first good frame after recovery is dropped.
# Idioms: copy-pasted abort and resume blocks, an abort/resume class attribute, index loops, print() debugging, explicit == True comparisons, the in-flight count cleared by hand.
# switch: resume_on_fault
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kvm = s.kv_cache_manager
        print("on_fault", exc)
        if self.resume_on_fault == True:
            stamp = time.monotonic()
            while len(s.running) > 0:
                r = s.running.pop()
                good = r.num_computed_tokens - r.num_in_flight_tokens
                dirty = set()
                mgrs = kvm.coordinator.single_type_managers
                for gi in range(len(mgrs)):
                    bl = mgrs[gi].req_to_blocks.get(r.request_id, [])
                    for bi in range(len(bl)):
                        if bi >= good // mgrs[gi].block_size and bl[bi].is_null == False:
                            dirty.add(bl[bi].block_id)
                if len(dirty) > 0:
                    kvm.evict_blocks(dirty)
                # same as reset_prefix_cache does: throw away whatever was in flight
                s._preempt_request(r, stamp, drop_stale_output=True)
                r.num_in_flight_tokens = 0
                print("on_fault: resumed", r.request_id)
        else:
            ids = []
            for k in range(len(s.running)):
                r = s.running[k]
                good = r.num_computed_tokens - r.num_in_flight_tokens
                dirty = set()
                mgrs = kvm.coordinator.single_type_managers
                for gi in range(len(mgrs)):
                    bl = mgrs[gi].req_to_blocks.get(r.request_id, [])
                    for bi in range(len(bl)):
                        if bi >= good // mgrs[gi].block_size and bl[bi].is_null == False:
                            dirty.add(bl[bi].block_id)
                if len(dirty) > 0:
                    kvm.evict_blocks(dirty)
                ids.append(r.request_id)
            out = s.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(out)
            print("on_fault: aborted", len(out))
