# Intended: correct.
# Idioms: a dict from group number to a list of block ids built with append and setdefault-by-hand, one evict call per group straight on the block pool, an abort/resume class attribute, copy-pasted counter code, print() debugging, explicit len(x) == 0 checks.
# switch: resume_mode
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_mode = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        pool = sched.kv_cache_manager.block_pool
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        per_group = {}
        reqs = []
        for req in sched.running:
            reqs.append(req)
        print("fault:", exc, "running:", len(reqs))
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            group_no = 0
            for mgr in managers:
                if group_no not in per_group:
                    per_group[group_no] = []
                blocks = mgr.req_to_blocks.get(req.request_id)
                if blocks == None:
                    blocks = []
                first = confirmed // mgr.block_size
                for k in range(len(blocks)):
                    if k < first:
                        continue
                    if blocks[k].is_null:
                        continue
                    per_group[group_no].append(blocks[k].block_id)
                group_no = group_no + 1

        for group_no in per_group:
            ids = per_group[group_no]
            if len(ids) == 0:
                print("fault: group", group_no, "nothing to evict")
            else:
                print("fault: group", group_no, "evicting", ids)
                pool.evict_blocks(set(ids))

        if self.resume_mode == True:
            ts = time.monotonic()
            for k in range(len(reqs) - 1, -1, -1):
                req = reqs[k]
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
                print("fault: preempted", req.request_id)
        else:
            req_ids = []
            for req in reqs:
                req_ids.append(req.request_id)
            done = sched.finish_requests(req_ids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(done)
            print("fault: aborted", len(done))
