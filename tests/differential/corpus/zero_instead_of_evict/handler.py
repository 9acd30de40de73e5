# Intended: bug: records the unconfirmed tail for zeroing instead of evicting it; zeroing keeps the block hashes, so the dirty (now zeroed) blocks still produce prefix-cache hits.
# For each running request, records blocks from the block-aligned confirmed boundary for zeroing, then aborts.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        block_size = scheduler.block_size
        for req in scheduler.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            kvm.record_blocks_for_zeroing(req.request_id, confirmed - confirmed % block_size)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
