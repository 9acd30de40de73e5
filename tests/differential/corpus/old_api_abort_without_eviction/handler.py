# Intended: bug (older API). A 0.26 fork's abort-all without tail eviction.
# vllm: 0.26
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
