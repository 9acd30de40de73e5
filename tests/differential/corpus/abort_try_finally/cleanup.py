def drop_dirty_tail(scheduler):
    kvm = scheduler.kv_cache_manager
    dirty = []
    for request in scheduler.running:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for group in kvm.coordinator.single_type_managers:
            blocks = group.req_to_blocks[request.request_id]
            dirty.extend(b.block_id for b in blocks[confirmed // group.block_size:] if not b.is_null)
    kvm.evict_blocks(set(dirty))
