# Intended: generated handler g1_00303: api=0.26 mode=switch site=chain3 ids=slice_end filter=is_null evict_call=dict_literal release_call=kwargs reset=vars_update drain=pop_comprehension granularity=per_request flow=try_else switch_style=if defect=ft007_none request_ref=copy.
# switch: resume
# vllm: 0.26
import copy
import time
from vllm.v1.request import RequestStatus


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if self.resume:
            ts = time.monotonic()
            victims = [sched.running.pop() for _ in range(len(sched.running))]
            for req in victims:
                sched._preempt_request(**{"request": req, "timestamp": ts})
                target = copy.copy(req)
                vars(target).update(num_in_flight_tokens=0, num_output_placeholders=0)
        else:
            aborted = sched.finish_requests(**{"request_ids": None, "finished_status": RequestStatus.FINISHED_ABORTED})
            self.engine._send_abort_outputs(aborted)
