"""Recovery mixins shared by the engine-core fault handlers."""

import time


class RequeueMixin:
    """Needs ``self.engine``. Evicts the unconfirmed tail, then requeues."""

    def _unconfirmed(self, request):
        kv = self.engine.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        return {
            b.block_id
            for m in kv.coordinator.single_type_managers
            for b in m.req_to_blocks.get(request.request_id, ())[confirmed // m.block_size:]
            if not b.is_null
        }

    def requeue_running(self):
        sched = self.engine.scheduler
        batch = list(sched.running)
        for request in batch:
            sched.kv_cache_manager.evict_blocks(self._unconfirmed(request))
        sched.running.clear()
        stamp = time.monotonic()
        for request in reversed(batch):
            sched._preempt_request(request, stamp)
            # The stale frame will never be delivered: do not wait for it.
            request.num_stale_output_tokens = 0
