# Intended: bug. Records the unconfirmed tail for KV zeroing instead of evicting
# it: the blocks get zeroed but their hashes stay in the prefix cache.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            aligned = confirmed // sched.block_size * sched.block_size
            kvm.record_blocks_for_zeroing(req.request_id, aligned)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
