# Intended: correct.
# Idioms: options object merged with defaults ({**DEFAULTS, **opts}), **kwargs constructor,
# callbacks passed in the options (onEvicted / onAborted / onResumed), destructuring of the
# merged options, early returns, a class-attribute abort/resume switch read at call time.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus

noop = lambda *args, **kwargs: None  # noqa: E731 - a JS-style no-op callback

DEFAULTS = {
    "abortStatus": RequestStatus.FINISHED_ABORTED,
    "skipNullBlocks": True,
    "onEvicted": noop,
    "onAborted": noop,
    "onResumed": noop,
}


class FaultHandler:
    RESUME = False

    def __init__(self, engine, **opts):
        self.engine = engine
        self.opts = {**DEFAULTS, **opts}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = [*sched.running]
        if not requests:
            return

        opts = {**self.opts, "resume": self.RESUME}
        evicted = self.evictTail(sched.kv_cache_manager, requests, opts)
        opts["onEvicted"](evicted)

        if opts["resume"]:
            return opts["onResumed"](self.resume(sched, requests))
        aborted = sched.finish_requests([r.request_id for r in requests], opts["abortStatus"])
        getattr(self.engine, "_send_abort_outputs", noop)(aborted)
        opts["onAborted"](aborted)

    @staticmethod
    def evictTail(kv, requests, opts):
        skip_null = opts["skipNullBlocks"]
        ids = set()
        for req in requests:
            start_token = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                held = mgr.req_to_blocks.get(req.request_id, [])
                ids |= {
                    blk.block_id
                    for idx, blk in enumerate(held)
                    if idx >= start_token // mgr.block_size and not (skip_null and blk.is_null)
                }
        if ids:
            kv.evict_blocks(ids)
        return ids

    @staticmethod
    def resume(sched, requests):
        ts = time.monotonic()
        for req in requests[::-1]:
            sched.running.remove(req)
            # In-flight counters first: then the preempt copies a zero into the stale count.
            req.num_in_flight_tokens = 0
            sched._preempt_request(req, ts)
        return requests
