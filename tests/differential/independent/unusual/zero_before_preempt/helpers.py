def evict_tails(kv, requests):
    """Evict the unconfirmed tail of each request in every KV-cache group."""
    dirty = set()
    for req in requests:
        first_token = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            for blk in mgr.req_to_blocks.get(req.request_id, [])[first_token // mgr.block_size:]:
                if not blk.is_null:
                    dirty.add(blk.block_id)
    if dirty:
        kv.evict_blocks(dirty)
    return dirty
