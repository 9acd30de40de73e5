# Intended: buggy: eviction of the unconfirmed tail sits behind an opt-in option whose default is off, so with the default constructor nothing is evicted and every dirty block stays in the prefix cache on both paths.
# Idioms: options object merged with defaults ({**DEFAULTS, **opts}) through **kwargs,
# feature flags in camelCase, callbacks in the options, a dict of handlers keyed by mode,
# early returns; abort/resume switch.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus

DEFAULTS = {
    "evictDirtyBlocks": False,  # opt in once the eviction has been validated on hybrid models
    "abortStatus": RequestStatus.FINISHED_ABORTED,
    "onDone": lambda mode, reqs: None,
}


class FaultHandler:
    RESUME = False

    def __init__(self, engine, **opts):
        self.engine = engine
        self.options = {**DEFAULTS, **opts}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = [*sched.running]
        if not reqs:
            return
        opts = self.options
        if opts["evictDirtyBlocks"]:
            self.evictDirty(sched.kv_cache_manager, reqs)
        mode = "resume" if self.RESUME else "abort"
        result = {"resume": self.resumeAll, "abort": self.abortAll}[mode](sched, reqs, opts)
        opts["onDone"](mode, result)

    @staticmethod
    def evictDirty(kv, reqs):
        ids = {
            blk.block_id
            for req in reqs
            for mgr in kv.coordinator.single_type_managers
            for blk in mgr.req_to_blocks.get(req.request_id, [])[
                (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size:
            ]
            if not blk.is_null
        }
        if ids:
            kv.evict_blocks(ids)

    def abortAll(self, sched, reqs, opts):
        aborted = sched.finish_requests([r.request_id for r in reqs], opts["abortStatus"])
        self.engine._send_abort_outputs(aborted)
        return aborted

    @staticmethod
    def resumeAll(sched, reqs, opts):
        ts = time.monotonic()
        for req in reqs[::-1]:
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        return reqs
