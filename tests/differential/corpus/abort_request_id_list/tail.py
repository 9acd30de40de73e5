def evict_tails(kv_cache_manager, requests):
    """Evict the blocks the lost step wrote, in every KV-cache group."""
    managers = kv_cache_manager.coordinator.single_type_managers
    block_ids = set()
    for req in requests:
        good_tokens = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in managers:
            row = mgr.req_to_blocks[req.request_id]
            block_ids.update(blk.block_id for blk in row[good_tokens // mgr.block_size:]
                             if not blk.is_null)
    kv_cache_manager.evict_blocks(block_ids)
