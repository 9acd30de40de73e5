def tail_block_ids(sched):
    out = set()
    for req in sched.running:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            out.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]
                       if not b.is_null)
    return out
