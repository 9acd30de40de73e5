# Intended: buggy: evicts the unconfirmed tail only on the resume branch; the abort branch frees the requests with their dirty blocks still cached.
# Idioms: tracker class with record/act methods, dict of lists keyed "req_ids"/"groups"/"ids", itertools.compress with a null-block mask, switch attribute
# switch: recover_in_place
import itertools
import time

from vllm.v1.request import RequestStatus


class ResumeTracker:
    def __init__(self):
        self.cols = {"req_ids": [], "groups": [], "ids": []}

    def record(self, req, gi, mgr):
        blocks = mgr.req_to_blocks.get(req.request_id, [])[
            (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size :
        ]
        mask = [not b.is_null for b in blocks]
        self.cols["req_ids"].append(req.request_id)
        self.cols["groups"].append(gi)
        self.cols["ids"].append([b.block_id for b in itertools.compress(blocks, mask)])

    def all_ids(self):
        return {i for ids in self.cols["ids"] for i in ids}


class FaultHandler:
    recover_in_place = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not self.recover_in_place:
            # aborting: the requests are gone anyway, nothing to clean up
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            print(f"aborted {len(aborted)}")
            return
        kv = sched.kv_cache_manager
        tr = ResumeTracker()
        for gi, mgr in enumerate(kv.coordinator.single_type_managers):
            for req in sched.running:
                tr.record(req, gi, mgr)
        kv.evict_blocks(tr.all_ids())
        ts = time.monotonic()
        for req in list(sched.running):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        print(f"resumed {len(tr.cols['req_ids'])} (request, group) rows")
