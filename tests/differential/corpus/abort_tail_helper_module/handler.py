# Intended: correct. Evicts every running request's unconfirmed tail (all
# KV-cache groups) through a helper in another module, then aborts everything.
from vllm.v1.request import RequestStatus

from kv_tail import evict_unconfirmed_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        evict_unconfirmed_tail(scheduler)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
