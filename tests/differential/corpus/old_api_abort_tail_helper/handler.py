# Intended: correct (older API). A 0.26 fork's abort with the tail evicted by
# a helper first.
# vllm: 0.26
from vllm.v1.request import RequestStatus

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
