# Intended: buggy: after the preempt it clears the stale-output count but leaves num_in_flight_tokens set, so the resumed request's confirmed boundary is off by the lost step.
# Idioms: a list of requests copied with append, index loops, nested ifs, temporary variables, logging debug output, a hand-kept counter of preempted requests; resume only.
import logging
import time

logger = logging.getLogger("resume_handler")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.preempted = 0

    def on_fault(self, exc):
        logger.warning("fault in busy loop: %s", exc)
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        all_reqs = []
        for i in range(len(scheduler.running)):
            all_reqs.append(scheduler.running[i])
        for i in range(len(all_reqs)):
            req = all_reqs[i]
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids = set()
            for manager in kvm.coordinator.single_type_managers:
                blocks = manager.req_to_blocks.get(req.request_id)
                if blocks is not None:
                    for j in range(len(blocks)):
                        if j >= confirmed // manager.block_size:
                            if not blocks[j].is_null:
                                ids.add(blocks[j].block_id)
            logger.warning("request %s dirty blocks %s", req.request_id, ids)
            if len(ids) != 0:
                kvm.evict_blocks(ids)
        now = time.monotonic()
        for i in range(len(all_reqs) - 1, -1, -1):
            req = all_reqs[i]
            scheduler.running.remove(req)
            scheduler._preempt_request(req, now)
            # the output of the failed step will never come, don't wait for it
            req.num_stale_output_tokens = 0
            self.preempted = self.preempted + 1
        logger.warning("preempted %d requests so far", self.preempted)
