def unconfirmed_tails(kv, requests):
    dirty = set()
    for req in requests:
        start = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            for blk in mgr.req_to_blocks.get(req.request_id, [])[start // mgr.block_size:]:
                if not blk.is_null:
                    dirty.add(blk.block_id)
    kv.evict_blocks(dirty)
    return dirty
