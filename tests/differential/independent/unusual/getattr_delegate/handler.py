# Intended: correct.
# A KVView whose __getattr__ delegates to the kv-cache manager is driven through getattr() with method names held in variables, and a conditional expression picks the per-request release method.
# switch: resume
import time

from vllm.v1.request import RequestStatus


class KVView:
    """Thin view over the scheduler's KVCacheManager; unknown names go to it."""

    def __init__(self, scheduler):
        self._kv = scheduler.kv_cache_manager

    def __getattr__(self, name):
        return getattr(self._kv, name)

    @property
    def groups(self):
        return self.coordinator.single_type_managers

    def tail_of(self, request):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for mgr in self.groups:
            for block in mgr.req_to_blocks.get(request.request_id, [])[confirmed // mgr.block_size:]:
                if not block.is_null:
                    yield block.block_id


class FaultHandler:
    EVICT = "evict_blocks"

    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def on_fault(self, exc):
        sched = self.engine.scheduler
        view = KVView(sched)
        dirty = {bid for req in sched.running for bid in view.tail_of(req)}
        getattr(view, self.EVICT)(dirty)
        release = self._preempt if self.resume else self._abort
        now = time.monotonic()
        for req in list(sched.running):
            release(sched, req, now)

    def _preempt(self, sched, req, now):
        sched.running.remove(req)
        sched._preempt_request(req, now)
        for counter in ("num_in_flight_tokens", "num_stale_output_tokens"):
            setattr(req, counter, 0)

    def _abort(self, sched, req, now):
        self.engine._send_abort_outputs(sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED))
