# Intended: buggy: the tail eviction sits behind an environment option that is off by default, so with default settings neither path evicts anything and the lost step's blocks stay in the prefix cache.
# Idioms: an options module of module-level constants read from environment variables, nested ifs on those flags compared with == True, index loops, print() debugging, an abort/resume class attribute, counters cleared by hand after the preempt.
# switch: RESUME_REQUESTS
import time

from vllm.v1.request import RequestStatus

import ft_options


class FaultHandler:
    RESUME_REQUESTS = False

    def __init__(self, engine):
        self.engine = engine

    def evict_tail(self, scheduler, req):
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        ids = set()
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for g in range(len(managers)):
            blocks = managers[g].req_to_blocks.get(req.request_id, [])
            for i in range(len(blocks)):
                if i >= confirmed // managers[g].block_size:
                    if blocks[i].is_null == False:
                        ids.add(blocks[i].block_id)
        if len(ids) > 0:
            scheduler.kv_cache_manager.evict_blocks(ids)
        return len(ids)

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        if ft_options.DEBUG == True:
            print("fault:", exc, "evict =", ft_options.EVICT_DIRTY_BLOCKS)
        reqs = []
        for r in scheduler.running:
            reqs.append(r)
        if ft_options.EVICT_DIRTY_BLOCKS == True:
            for r in reqs:
                n = self.evict_tail(scheduler, r)
                if ft_options.DEBUG == True:
                    print("fault: evicted", n, "blocks of", r.request_id)
        if self.RESUME_REQUESTS == True:
            ts = time.monotonic()
            for i in range(len(reqs) - 1, -1, -1):
                scheduler.running.remove(reqs[i])
                scheduler._preempt_request(reqs[i], ts)
                reqs[i].num_in_flight_tokens = 0
                reqs[i].num_stale_output_tokens = 0
        else:
            ids = []
            for r in reqs:
                ids.append(r.request_id)
            aborted = scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
