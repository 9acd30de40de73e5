# Intended: correct.
# Idioms: nested closures recursing by index (over requests, and inside over groups) that capture the scheduler; resume-only handler (always requeues), eviction per request right before its preemption.
"""Resume-only fault handler: every running request goes back to waiting with a clean tail."""

import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        stamp = time.monotonic()
        queue = list(sched.running)

        def tail_of(req, g):
            if g == len(managers):
                return set()
            m = managers[g]
            held = m.req_to_blocks.get(req.request_id, [])
            lo = (req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size
            return {b.block_id for b in held[lo:] if not b.is_null} | tail_of(req, g + 1)

        def requeue(i):
            if i < 0:
                return
            req = queue[i]
            ids = tail_of(req, 0)
            if ids:
                kv.evict_blocks(ids)
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            requeue(i - 1)

        requeue(len(queue) - 1)
