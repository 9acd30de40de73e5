def evict_tail(sched):
    kvm = sched.kv_cache_manager
    ids = set()
    for req in sched.running:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kvm.coordinator.single_type_managers:
            ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]}
    kvm.evict_blocks(ids)
