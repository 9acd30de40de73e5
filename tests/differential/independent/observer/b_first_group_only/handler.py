# Intended: buggy: it evicts the unconfirmed tail only in the first KV-cache group, reading the blocks and block size of single_type_managers[0], so on a hybrid model (full plus sliding-window attention) the dirty tail blocks of the other group stay in the prefix cache.
# Idioms: named hook registry with numeric priorities (lower runs first), hooks registered with a decorator in __init__, before_abort / before_preempt / after_preempt hooks fired by the handler.
# switch: requeue
import time

from vllm.v1.request import RequestStatus

from hookbus import Hooks


class FaultHandler:
    requeue = False

    def __init__(self, engine):
        self.engine = engine
        self.hooks = Hooks()
        hooks = self.hooks

        @hooks.register("before_abort", priority=10)
        @hooks.register("before_preempt", priority=10)
        def evict_tail(request):
            kv = engine.scheduler.kv_cache_manager
            # One block table per request: the full-attention one.
            table = kv.coordinator.single_type_managers[0]
            blocks = table.req_to_blocks.get(request.request_id) or []
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            ids = {b.block_id for b in blocks[confirmed // table.block_size:]}
            if ids:
                kv.evict_blocks(ids)

        @hooks.register("after_preempt")
        def clear_lost_step(request):
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if self.requeue:
            now = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                self.hooks.fire("before_preempt", req)
                sched._preempt_request(req, now)
                self.hooks.fire("after_preempt", req)
            return
        running = list(sched.running)
        for req in running:
            self.hooks.fire("before_abort", req)
        aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
