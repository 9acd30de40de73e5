# Intended: correct.
# Idioms: a helper module with a module-level call counter and a global statement, manual position counters in for loops, a list built with append turned into a set, an abort/resume class attribute, print() debugging, explicit len(x) == 0 checks.
# switch: resume_requests
import time

from vllm.v1.request import RequestStatus

import dirty_tail


class FaultHandler:
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        print("FAULT:", exc)
        scheduler = self.engine.scheduler
        all_dirty = []
        request_list = []
        for request in scheduler.running:
            dirty = dirty_tail.find_dirty_block_ids(scheduler, request)
            for block_id in dirty:
                all_dirty.append(block_id)
            request_list.append(request)
        if len(all_dirty) == 0:
            print("FAULT: nothing to evict")
        else:
            scheduler.kv_cache_manager.evict_blocks(set(all_dirty))
            print("FAULT: evicted", len(all_dirty), "blocks")

        if self.resume_requests:
            stamp = time.monotonic()
            count = 0
            i = len(request_list) - 1
            while i >= 0:
                request = request_list[i]
                scheduler.running.remove(request)
                scheduler._preempt_request(request, stamp)
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
                count = count + 1
                i = i - 1
            print("FAULT: preempted", count, "requests, helper calls so far:", dirty_tail.CALLS)
        else:
            id_list = []
            for request in request_list:
                id_list.append(request.request_id)
            aborted = scheduler.finish_requests(id_list, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            print("FAULT: aborted", len(aborted), "requests")
