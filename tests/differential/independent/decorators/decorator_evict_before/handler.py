# Intended: correct.
# A functools.wraps decorator on on_fault scrubs the unconfirmed KV tail of every running request before the wrapped body preempts or aborts them.
# switch: resume_on_fault
import functools
import time

from vllm.v1.request import RequestStatus


def scrubs_unconfirmed_tail(fn):
    """Before ``fn`` runs, drop the prefix-cache hashes of the blocks that the
    failed step was writing (the unconfirmed tail), in every KV-cache group."""

    @functools.wraps(fn)
    def wrapper(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        doomed = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in managers:
                first_dirty = confirmed // mgr.block_size
                for blk in mgr.req_to_blocks.get(req.request_id, ())[first_dirty:]:
                    if not blk.is_null:
                        doomed.add(blk.block_id)
        if doomed:
            sched.kv_cache_manager.evict_blocks(doomed)
        return fn(self, exc)

    return wrapper


class FaultHandler:
    resume_on_fault = True

    def __init__(self, engine):
        self.engine = engine

    @scrubs_unconfirmed_tail
    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not self.resume_on_fault:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        now = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, now)
            # The lost step's frame never comes back: nothing is in flight.
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
