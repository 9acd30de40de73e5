from __future__ import annotations


class QuarantineService:
    """Takes the blocks a failed step may have written out of the prefix cache."""

    def quarantine(self, scheduler, requests) -> int:
        kv = scheduler.kv_cache_manager
        coordinator = kv.coordinator
        doomed: set[int] = set()
        for request in requests:
            verified = request.num_computed_tokens - request.num_in_flight_tokens
            tables = coordinator.get_blocks(request.request_id)
            for size, table in zip(coordinator.group_block_sizes, tables):
                cut = verified - verified % size  # start of the block holding the boundary
                doomed.update(blk.block_id for n, blk in enumerate(table) if n * size >= cut and not blk.is_null)
        kv.evict_blocks(doomed)
        return len(doomed)
