def evict(kv, requests):
    ids = set()
    for req in requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            ids.update(b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null)
    if ids:
        kv.evict_blocks(ids)
