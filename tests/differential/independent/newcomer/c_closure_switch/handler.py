# Intended: correct.
# Idioms: small closures defined inside on_fault that capture the scheduler and a counter dict, an abort/resume class attribute checked with == False, manual list building, print() debugging, explicit != None comparisons, counters cleared by hand after the preempt.
# switch: use_resume
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    use_resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kv_cache_manager = scheduler.kv_cache_manager
        stats = {"requests": 0, "blocks": 0}

        def tail_ids_for(req):
            ids = []
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for manager in kv_cache_manager.coordinator.single_type_managers:
                blocks = manager.req_to_blocks.get(req.request_id)
                if blocks != None:
                    first = confirmed // manager.block_size
                    for i in range(first, len(blocks)):
                        if blocks[i].is_null == False:
                            ids.append(blocks[i].block_id)
            return ids

        def evict_tail(req):
            ids = tail_ids_for(req)
            stats["requests"] = stats["requests"] + 1
            stats["blocks"] = stats["blocks"] + len(ids)
            if len(ids) > 0:
                kv_cache_manager.evict_blocks(set(ids))

        print("on_fault:", exc, "resume =", self.use_resume)
        if self.use_resume == False:
            names = []
            for req in scheduler.running:
                evict_tail(req)
                names.append(req.request_id)
            result = scheduler.finish_requests(names, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(result)
        else:
            t = time.monotonic()
            reqs = []
            for req in scheduler.running:
                reqs.append(req)
            for req in reqs:
                evict_tail(req)
            scheduler.running = []
            reqs.reverse()
            for req in reqs:
                scheduler._preempt_request(req, t)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        print("on_fault done:", stats)
