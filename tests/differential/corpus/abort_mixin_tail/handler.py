# Intended: correct. The tail eviction comes from a mixin defined in another
# module; the handler calls the inherited method before aborting.
from vllm.v1.request import RequestStatus

from mixins import TailEvictionMixin


class FaultHandler(TailEvictionMixin):
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        self.evict_unconfirmed_tail(scheduler)
        scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
