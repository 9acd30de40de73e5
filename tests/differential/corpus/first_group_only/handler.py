# Intended: bug: only the first KV-cache group's tail is evicted; with a hybrid model (full + sliding window) the sliding-window group's dirty blocks keep their hashes.
# Evicts the unconfirmed tail from the (first) KV-cache manager, then aborts or preempts-and-resets depending on the switch.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        manager = kvm.coordinator.single_type_managers[0]
        block_size = manager.block_size
        dirty = set()
        for req in scheduler.running:
            start = (req.num_computed_tokens - req.num_in_flight_tokens) // block_size
            dirty.update(b.block_id for b in manager.req_to_blocks[req.request_id][start:])
        kvm.evict_blocks(dirty)

        if self.RESUME:
            now = time.monotonic()
            for req in reversed(scheduler.running):
                scheduler._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            scheduler.running = []
        else:
            self.engine._send_abort_outputs(
                scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            )
