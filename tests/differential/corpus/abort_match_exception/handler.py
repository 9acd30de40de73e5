# Intended: correct. Dispatches on the exception type with match; every case
# evicts the unconfirmed tail before it aborts.
from vllm.v1.request import RequestStatus

from kvutil import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.timeouts = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        match exc:
            case TimeoutError():
                self.timeouts += 1
                evict_tail(sched)
                sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            case RuntimeError() if "collective" in str(exc):
                evict_tail(sched)
                sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            case _:
                evict_tail(sched)
                sched.finish_requests(None, RequestStatus.FINISHED_ERROR)
