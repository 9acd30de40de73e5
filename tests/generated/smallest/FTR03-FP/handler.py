# Intended: generated handler g1_1200084: api=0.26 mode=resume site=chain3 ids=loop_add filter=both evict_call=methodcaller release_call=direct reset=vars_update drain=reversed_remove granularity=per_request flow=plain switch_style=dict_dispatch defect=ft007_none request_ref=same.
# vllm: 0.26
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ts = time.monotonic()
        for req in list(reversed(sched.running)):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            vars(req).update(num_in_flight_tokens=0, num_output_placeholders=0)
