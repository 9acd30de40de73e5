# Intended: correct.
# Skips requests with nothing in flight (their blocks are all confirmed), evicts the tail of the rest in all groups, then aborts or preempts-and-resets depending on the switch.
# switch: resume_requests
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine

    def _evict_request_tail(self, scheduler, request):
        if request.num_in_flight_tokens == 0:
            return
        start_token = request.num_computed_tokens - request.num_in_flight_tokens
        ids = set()
        for m in scheduler.kv_cache_manager.coordinator.single_type_managers:
            ids.update(
                blk.block_id
                for blk in m.req_to_blocks[request.request_id][start_token // m.block_size:]
                if not blk.is_null
            )
        scheduler.kv_cache_manager.evict_blocks(ids)

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        for request in scheduler.running:
            self._evict_request_tail(scheduler, request)

        if not self.resume_requests:
            self.engine._send_abort_outputs(
                scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            )
            return

        running, scheduler.running = scheduler.running, []
        ts = time.monotonic()
        for request in reversed(running):
            scheduler._preempt_request(request, ts)
            request.num_in_flight_tokens = request.num_stale_output_tokens = 0
