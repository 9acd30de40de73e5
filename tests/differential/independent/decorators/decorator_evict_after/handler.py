# Intended: buggy: the decorator's cleanup runs after the wrapped on_fault has already aborted the requests, so it reads their block lists from req_to_blocks after the free (they were popped) and evicts nothing; the dirty tail stays in the prefix cache.
# A functools.wraps "post-cleanup" decorator on on_fault evicts the unconfirmed tail of the requests that were running, after the wrapped body returns.
import functools

from vllm.v1.request import RequestStatus


def then_evict_unconfirmed(fn):
    @functools.wraps(fn)
    def wrapper(self, exc):
        sched = self.engine.scheduler
        affected = list(sched.running)
        boundaries = {r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in affected}
        result = fn(self, exc)
        kv = sched.kv_cache_manager
        ids = set()
        for rid, confirmed in boundaries.items():
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(rid, ())
                ids.update(b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null)
        kv.evict_blocks(ids)
        return result

    return wrapper


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    @then_evict_unconfirmed
    def on_fault(self, exc):
        sched = self.engine.scheduler
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
