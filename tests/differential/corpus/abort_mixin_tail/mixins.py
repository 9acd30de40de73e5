class TailEvictionMixin:
    """Drops the KV blocks a failed step wrote from the prefix cache."""

    def evict_unconfirmed_tail(self, scheduler):
        block_ids: set[int] = set()
        for request in scheduler.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in scheduler.kv_cache_manager.coordinator.single_type_managers:
                first = confirmed // manager.block_size
                for block in manager.req_to_blocks[request.request_id][first:]:
                    if not block.is_null:
                        block_ids.add(block.block_id)
        if block_ids:
            scheduler.kv_cache_manager.evict_blocks(block_ids)
