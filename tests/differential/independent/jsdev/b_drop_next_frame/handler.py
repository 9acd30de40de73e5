# Intended: buggy: it preempts with drop_stale_output=True (the reset_prefix_cache recipe) and only clears num_in_flight_tokens, so each requeued request stays marked to drop stale output that never arrives and its first good output frame after resume is thrown away.
# Idioms: kwargs options objects spread into calls (**PREEMPT_OPTS), a fluent Requeuer whose
# methods return self, lambdas, getattr optional chaining, early returns; resume-only handler.
import time

PREEMPT_OPTS = {"drop_stale_output": True}  # same as Scheduler.reset_prefix_cache does


class Requeuer:
    def __init__(self, sched):
        self.sched, self.reqs, self.ts = sched, [], time.monotonic()

    def take(self, reqs):
        self.reqs = list(reqs)
        return self

    def evictTail(self):
        kv = self.sched.kv_cache_manager
        ids = {
            b.block_id
            for r in self.reqs
            for m in kv.coordinator.single_type_managers
            for b in m.req_to_blocks.get(r.request_id, [])[(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]
            if not b.is_null
        }
        ids and kv.evict_blocks(ids)
        return self

    def preempt(self, **opts):
        for r in reversed(self.reqs):
            self.sched.running.remove(r)
            self.sched._preempt_request(r, self.ts, **{**PREEMPT_OPTS, **opts})
        return self

    def resetInFlight(self):
        for r in self.reqs:
            r.num_in_flight_tokens = 0
        return self


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = getattr(self.engine, "scheduler", None)
        if not (sched and sched.running):
            return
        Requeuer(sched).take(sched.running).evictTail().preempt().resetInFlight()
