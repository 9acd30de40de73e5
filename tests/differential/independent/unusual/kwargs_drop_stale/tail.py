def evict_unconfirmed(kv, requests):
    ids = set()
    for req in requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            ids.update(
                b.block_id
                for b in mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size:]
                if not b.is_null
            )
    if ids:
        kv.evict_blocks(ids)
