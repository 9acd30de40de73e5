# Intended: correct.
# Resume-only: binds the preempt timestamp with functools.partial, evicts each request's dirty tail per group, zeroes num_in_flight_tokens before preempting so no stale output is expected.
import functools
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _evict_tail(self, kvm, request):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for group in kvm.coordinator.single_type_managers:
            start = confirmed // group.block_size
            tail = group.req_to_blocks[request.request_id][start:]
            ids = {b.block_id for b in tail if not b.is_null}
            if ids:
                kvm.evict_blocks(ids)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        preempt = functools.partial(sched._preempt_request, timestamp=time.monotonic())
        for request in reversed(list(sched.running)):
            self._evict_tail(sched.kv_cache_manager, request)
            sched.running.remove(request)
            # _preempt_request copies this into num_stale_output_tokens:
            # the failed step's output is never coming, so expect none.
            request.num_in_flight_tokens = 0
            preempt(request)
