# Intended: generated handler g1_1000037: api=0.34 mode=abort site=classmethod ids=slice_first filter=is_null evict_call=dict_computed release_call=methodcaller reset=setattr_dict drain=while_pop granularity=per_request flow=plain switch_style=match defect=ft007_none request_ref=alias.
import operator
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        aborted = operator.methodcaller("finish_requests", None, RequestStatus.FINISHED_ABORTED)(sched)
        self.engine._send_abort_outputs(aborted)
