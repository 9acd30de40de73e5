# Intended: buggy: the tail eviction is only wired into the abort listener, so on the resume path requests are requeued with their unconfirmed blocks still in the prefix cache and re-hit KV that was never computed.
# Idioms: a path-to-callbacks map ({"abort": [...], "resume": [...]}) run with a reduce-free
# for-each, closures capturing the scheduler, arrow lambdas, early returns, abort/resume switch.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


def evictTail(sched):
    def run(reqs):
        kv = sched.kv_cache_manager
        ids = set()
        for r in reqs:
            confirmed = r.num_computed_tokens - r.num_in_flight_tokens
            for m in kv.coordinator.single_type_managers:
                ids.update(b.block_id for b in m.req_to_blocks.get(r.request_id, [])[confirmed // m.block_size:] if not b.is_null)
        ids and kv.evict_blocks(ids)

    return run


def abortAll(engine):
    def run(reqs):
        aborted = engine.scheduler.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)

    return run


def requeueAll(sched):
    def run(reqs):
        ts = time.monotonic()
        for r in reversed(reqs):
            sched.running.remove(r)
            sched._preempt_request(r, ts)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0

    return run


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine
        sched = engine.scheduler
        self.pipelines = {
            "abort": [evictTail(sched), abortAll(engine)],
            # resume keeps the cache: the requests re-hit their own blocks after recovery
            "resume": [requeueAll(sched)],
        }

    def on_fault(self, exc):
        reqs = list(self.engine.scheduler.running)
        if not reqs:
            return
        for step in self.pipelines["resume" if self.RESUME else "abort"]:
            step(reqs)
