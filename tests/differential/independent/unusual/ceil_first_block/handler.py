# Intended: buggy: the first dirty block index is the ceiling of confirmed / block_size instead of the floor, so the block that straddles the confirmed boundary (partly confirmed, partly written by the lost step) is skipped and stays cached.
# Uses the -(-a // b) ceiling idiom and range(first, last) index arithmetic over each group's block list.
from vllm.v1.request import RequestStatus


def dirty_ids(mgr, req):
    blocks = mgr.req_to_blocks.get(req.request_id, [])
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    first = -(-confirmed // mgr.block_size)  # first block not fully confirmed
    last = min(len(blocks), -(-req.num_computed_tokens // mgr.block_size))
    return {blocks[i].block_id for i in range(first, last) if not blocks[i].is_null}


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        ids = set()
        for req in sched.running:
            for mgr in kv.coordinator.single_type_managers:
                ids |= dirty_ids(mgr, req)
        kv.evict_blocks(ids)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
