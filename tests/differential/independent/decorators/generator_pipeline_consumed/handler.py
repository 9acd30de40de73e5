# Intended: correct.
# A two-stage generator pipeline from a sibling helpers module yields each running request with its unconfirmed tail, and a for loop evicts before the abort.
import helpers
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        stages = helpers.unconfirmed_blocks(sched, helpers.running_requests(sched))
        victims = []
        for req, ids in stages:
            sched.kv_cache_manager.evict_blocks(ids)
            victims.append(req.request_id)
        aborted = sched.finish_requests(victims, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
