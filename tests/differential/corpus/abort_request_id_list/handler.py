# Intended: correct. Snapshots the running request ids, evicts their tails with
# a helper that takes the request list, then aborts exactly those ids.
from vllm.v1.request import RequestStatus

from tail import evict_tails


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        victims = [r for r in s.running]
        evict_tails(s.kv_cache_manager, victims)
        s.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
