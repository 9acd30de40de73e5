# Intended: correct.
# A @contextlib.contextmanager helper evicts each running request's unconfirmed tail on enter and the with-body aborts everything.
import contextlib

from vllm.v1.request import RequestStatus


@contextlib.contextmanager
def quarantined(scheduler):
    """Enter: forget the prefix-cache hashes of KV the failed step never wrote.
    Yields the ids of the requests that were running."""
    kv = scheduler.kv_cache_manager
    ids = []
    for req in list(scheduler.running):
        ids.append(req.request_id)
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        stale = set()
        for group in kv.coordinator.single_type_managers:
            blocks = group.req_to_blocks.get(req.request_id, [])
            stale.update(b.block_id for b in blocks[confirmed // group.block_size:] if not b.is_null)
        kv.evict_blocks(stale)
    yield ids


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        with quarantined(sched):
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
