"""Tail eviction shared by the fault paths."""


def unconfirmed_tail_ids(scheduler):
    ids = set()
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    for request in scheduler.running:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for manager in managers:
            blocks = manager.req_to_blocks[request.request_id]
            for block in blocks[confirmed // manager.block_size:]:
                if not block.is_null and block.block_hash is not None:
                    ids.add(block.block_id)
    return ids


def evict_unconfirmed_tail(scheduler):
    ids = unconfirmed_tail_ids(scheduler)
    if ids:
        scheduler.kv_cache_manager.evict_blocks(ids)
