# Intended: over-eviction. Aborts, then clears the whole prefix cache: no dirty
# block survives, but neither does any clean one.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if not sched.reset_prefix_cache():
            raise RuntimeError("prefix cache reset failed after fault")
