# Intended: correct. Evicts the tail inside try and aborts in finally, so the
# abort happens even if the eviction raises; on the normal path the tail is
# evicted before the free.
from vllm.v1.request import RequestStatus

from cleanup import drop_dirty_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        try:
            drop_dirty_tail(scheduler)
        finally:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
