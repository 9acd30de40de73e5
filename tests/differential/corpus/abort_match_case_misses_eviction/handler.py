# Intended: bug. Uses match on the exception; the catch-all case (which a
# RuntimeError from a failed collective takes) aborts without evicting.
from vllm.v1.request import RequestStatus

from kvutil import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        match exc:
            case TimeoutError() | ConnectionError():
                evict_tail(sched)
                sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            case _:
                sched.finish_requests(None, RequestStatus.FINISHED_ERROR)
