# Intended: correct.
# A generator walks running requests and KV-cache groups yielding the non-null block ids of each unconfirmed tail; they are evicted as one set before the running requests are aborted by id.
from collections.abc import Iterator

from vllm.v1.request import RequestStatus


def iter_unconfirmed_blocks(scheduler) -> Iterator[int]:
    groups = scheduler.kv_cache_manager.coordinator.single_type_managers
    for request in scheduler.running:
        if request.num_in_flight_tokens <= 0:
            continue
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for group in groups:
            yield from (
                block.block_id
                for block in group.req_to_blocks[request.request_id][confirmed // group.block_size:]
                if not block.is_null
            )


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        scheduler.kv_cache_manager.evict_blocks(set(iter_unconfirmed_blocks(scheduler)))
        running_ids = [r.request_id for r in scheduler.running]
        aborted = scheduler.finish_requests(running_ids, RequestStatus.FINISHED_ABORTED)
        # Waiting requests never ran; abort them too so clients get an answer.
        aborted.extend(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
        self.engine._send_abort_outputs(aborted)
