# Intended: correct.
# Snapshots the dirty tail block ids (all groups) while the requests still own their blocks, aborts everything, then evicts the snapshotted ids from the prefix cache.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    @staticmethod
    def _snapshot_dirty(scheduler):
        snap = {}
        for request in scheduler.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            per_req = []
            for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
                per_req += [
                    b.block_id for b in mgr.req_to_blocks[request.request_id][confirmed // mgr.block_size:]
                    if not b.is_null
                ]
            snap[request.request_id] = per_req
        return snap

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        dirty = self._snapshot_dirty(scheduler)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        # The freed blocks keep their hashes until evicted; ids are still valid.
        scheduler.kv_cache_manager.evict_blocks({bid for ids in dirty.values() for bid in ids})
        self.engine._send_abort_outputs(aborted)
