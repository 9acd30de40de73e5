# Intended: buggy: the dirty-request filter only selects requests still in their prefill (no output token yet), on the assumption that decode steps write nothing worth evicting, so after a failed decode step the block the lost step filled and hashed stays in the prefix cache.
# Idioms: pluggy-like hook relay with hookimpl(name) decorators applied in __init__, a filter hook returning the requests to clean, results collected from every implementation.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus

from fault_hooks import HookRelay


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine
        self.relay = HookRelay()
        relay = self.relay

        @relay.hookimpl("select_dirty")
        def prefill_requests(requests):
            # A prefill writes many blocks at once; decodes only append a
            # token to an already-cached block.
            return [r for r in requests if r.num_output_tokens == 0]

        @relay.hookimpl("evict")
        def evict_tail(requests):
            kv = engine.scheduler.kv_cache_manager
            ids = set()
            for req in requests:
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                for mgr in kv.coordinator.single_type_managers:
                    blocks = mgr.req_to_blocks.get(req.request_id) or []
                    ids.update(b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null)
            kv.evict_blocks(ids)
            return len(ids)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        dirty = [r for batch in self.relay.call("select_dirty", requests=running) for r in batch]
        self.relay.call("evict", requests=dirty)
        if self.RESUME:
            ts = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
