# Intended: bug. Starts the "tail" at num_computed_tokens // block_size, which
# is past the blocks the failed step wrote: the dirty tail is missed.
from vllm.v1.request import RequestStatus


def lost_step_blocks(scheduler):
    found = set()
    for request in scheduler.running:
        for manager in scheduler.kv_cache_manager.coordinator.single_type_managers:
            start = request.num_computed_tokens // manager.block_size
            for block in manager.req_to_blocks[request.request_id][start:]:
                found.add(block.block_id)
    return found


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        scheduler.kv_cache_manager.evict_blocks(lost_step_blocks(scheduler))
        scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
