# Intended: correct.
# Looks up scheduler methods with getattr and clears the async counters with setattr over a tuple of names; evicts the tail first on both abort and resume paths.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus

_INFLIGHT_COUNTERS = ("num_in_flight_tokens", "num_stale_output_tokens")


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def _tail(self, scheduler, request):
        done = getattr(request, "num_computed_tokens") - getattr(request, "num_in_flight_tokens", 0)
        coordinator = getattr(scheduler.kv_cache_manager, "coordinator")
        for mgr in getattr(coordinator, "single_type_managers"):
            bs = getattr(mgr, "block_size")
            for blk in mgr.req_to_blocks[request.request_id][done // bs:]:
                if not getattr(blk, "is_null", False):
                    yield blk.block_id

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        evict = getattr(scheduler.kv_cache_manager, "evict_blocks")
        evict({bid for req in scheduler.running for bid in self._tail(scheduler, req)})

        if not self.RESUME:
            finish = getattr(scheduler, "finish_requests")
            self.engine._send_abort_outputs(finish(None, RequestStatus.FINISHED_ABORTED))
            return

        preempt = getattr(scheduler, "_preempt_request")
        now = time.monotonic()
        for req in scheduler.running[::-1]:
            preempt(req, now)
            for name in _INFLIGHT_COUNTERS:
                setattr(req, name, 0)
        scheduler.running.clear()
