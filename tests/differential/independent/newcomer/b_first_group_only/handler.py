# Intended: buggy: it only looks at the first KV-cache group's manager, so with a second group (sliding window) that group's blocks of the lost step keep their hashes in the prefix cache.
# Idioms: a module-level constant naming "the" attention manager index, copy-pasted tail code in the abort and resume branches, an abort/resume class attribute compared with == True, index loops, print() debugging, counters cleared by hand after the preempt.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus

ATTENTION_MANAGER = 0  # the full attention manager is always the first one


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        manager = kvm.coordinator.single_type_managers[ATTENTION_MANAGER]
        block_size = manager.block_size
        print("fault:", exc, "block size", block_size)
        if self.RESUME == True:
            now = time.monotonic()
            while len(sched.running) > 0:
                req = sched.running.pop()
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                first = confirmed // block_size
                blocks = manager.req_to_blocks.get(req.request_id, [])
                ids = set()
                for i in range(len(blocks)):
                    if i >= first:
                        ids.add(blocks[i].block_id)
                print("fault: resume", req.request_id, "evict", ids)
                if len(ids) > 0:
                    kvm.evict_blocks(ids)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            names = []
            for req in sched.running:
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                first = confirmed // block_size
                blocks = manager.req_to_blocks.get(req.request_id, [])
                ids = set()
                for i in range(len(blocks)):
                    if i >= first:
                        ids.add(blocks[i].block_id)
                print("fault: abort", req.request_id, "evict", ids)
                if len(ids) > 0:
                    kvm.evict_blocks(ids)
                names.append(req.request_id)
            aborted = sched.finish_requests(names, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
