# Intended: buggy: on the resume path it clears the stale-output count after the preempt but leaves num_in_flight_tokens set, so the requeued request's confirmed boundary is still off by the lost step.
# Idioms: event emitter (on/emit) defined inline, listeners as lambdas and closures,
# a payload dict destructured in listeners, early returns; abort/resume switch.
# switch: shouldResume
import time
from collections import defaultdict

from vllm.v1.request import RequestStatus


class Emitter:
    def __init__(self):
        self.handlers = defaultdict(list)

    def on(self, name, fn):
        self.handlers[name].append(fn)
        return self

    def emit(self, name, payload):
        for fn in self.handlers[name]:
            fn(payload)
        return payload


class FaultHandler:
    shouldResume = False

    def __init__(self, engine):
        self.engine = engine
        self.bus = (
            Emitter()
            .on("recover", lambda p: self.evictTail(**p))
            .on("recover", lambda p: (self.requeue if self.shouldResume else self.abort)(**p))
        )

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not sched.running:
            return
        self.bus.emit("recover", {"sched": sched, "reqs": list(sched.running)})

    def evictTail(self, sched, reqs):
        kv = sched.kv_cache_manager
        ids = set()
        for req in reqs:
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                held = mgr.req_to_blocks.get(req.request_id, [])
                ids.update(b.block_id for b in held[boundary // mgr.block_size:] if not b.is_null)
        if ids:
            kv.evict_blocks(ids)

    def abort(self, sched, reqs):
        aborted = sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def requeue(self, sched, reqs):
        ts = time.monotonic()
        for req in reversed(reqs):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            # The lost frame never arrives: don't make the scheduler wait for it.
            req.num_stale_output_tokens = 0
