# Intended: buggy: on resume it clears the stale-output counter before the preempt and never touches num_in_flight_tokens, so the preempt copies the lost step's in-flight count back into num_stale_output_tokens and the requeued request waits forever for output that never comes.
# Idioms: a Script of named step callables composed per request (then()/extend()), evictions
# Idioms: scripted first, run in order with a trace; abort/resume switch.
# switch: resume
from __future__ import annotations

import time

from step_script import Script
from vllm.v1.request import RequestStatus


def evict_script(req) -> Script:
    rid = req.request_id
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens

    def evict(sched):
        ids = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            held = mgr.req_to_blocks.get(rid, [])
            ids.update(b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null)
        sched.kv_cache_manager.evict_blocks(ids)

    return Script().then(f"evict-tail:{rid}", evict)


def requeue_script(req, now: float) -> Script:
    def clear_stale(sched):
        req.num_stale_output_tokens = 0
        req.drop_stale_output = False

    def preempt(sched):
        sched.running.remove(req)
        sched._preempt_request(req, now)

    return (
        Script()
        .then(f"clear-stale:{req.request_id}", clear_stale)
        .then(f"preempt:{req.request_id}", preempt)
    )


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        script = Script()
        for req in running:
            script.extend(evict_script(req))
        if self.resume:
            now = time.monotonic()
            for req in reversed(running):
                script.extend(requeue_script(req, now))
        else:
            ids = [r.request_id for r in running]
            script.then(
                "abort-all",
                lambda s: self.engine._send_abort_outputs(s.finish_requests(ids, RequestStatus.FINISHED_ABORTED)),
            )
        script.run(sched)
