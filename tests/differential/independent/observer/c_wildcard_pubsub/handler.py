# Intended: correct.
# Idioms: glob-pattern topic subscriptions (fnmatch) registered with a decorator on a bus built in __init__, closures as subscribers, a plain dict payload.
# switch: resume_on_fault
"""Fault handler driven by pattern topics.

``fault.prepare`` matches the ``fault.*`` subscribers (the tail evictor);
the outcome is published as ``requests.abort`` or ``requests.requeue``.
"""

import time

from vllm.v1.request import RequestStatus

from wildbus import PatternBus


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine
        self.bus = PatternBus()
        sched = engine.scheduler

        @self.bus.on("fault.*")
        def drop_unconfirmed_blocks(topic, payload):
            kv = sched.kv_cache_manager
            stale = set()
            for req in payload["requests"]:
                ok_tokens = req.num_computed_tokens - req.num_in_flight_tokens
                for single in kv.coordinator.single_type_managers:
                    chain = single.req_to_blocks.get(req.request_id) or []
                    for block in chain[ok_tokens // single.block_size:]:
                        if not block.is_null:
                            stale.add(block.block_id)
            payload["evicted"] = stale
            kv.evict_blocks(stale)

        @self.bus.on("requests.abort")
        def abort(topic, payload):
            ids = [r.request_id for r in payload["requests"]]
            engine._send_abort_outputs(sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED))

        @self.bus.on("requests.requeue")
        def requeue(topic, payload):
            when = time.monotonic()
            for req in reversed(payload["requests"]):
                sched.running.remove(req)
                req.num_in_flight_tokens = 0  # copied into the stale count by the preempt
                sched._preempt_request(req, when)
                req.num_stale_output_tokens = 0

    def on_fault(self, exc):
        payload = {"exc": exc, "requests": list(self.engine.scheduler.running)}
        self.bus.emit("fault.prepare", payload)
        self.bus.emit("requests.requeue" if self.resume_on_fault else "requests.abort", payload)
