"""Small pipeline stages for the fault handler."""


def running_requests(scheduler):
    """Yield the running requests (a snapshot: the caller may mutate the list)."""
    yield from list(scheduler.running)


def unconfirmed_blocks(scheduler, requests):
    """For each request, yield (request, ids of its blocks past the confirmed boundary)
    across all KV-cache groups."""
    groups = scheduler.kv_cache_manager.coordinator.single_type_managers
    for req in requests:
        boundary = req.num_computed_tokens - req.num_in_flight_tokens
        ids = set()
        for g in groups:
            tail = g.req_to_blocks.get(req.request_id, ())[boundary // g.block_size:]
            ids.update(b.block_id for b in tail if not b.is_null)
        yield req, ids
