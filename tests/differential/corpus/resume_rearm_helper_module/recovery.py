"""Recovery helpers for the resume path."""


def rearm(request):
    """The failed step's output never arrives: forget it was in flight."""
    request.num_in_flight_tokens = 0
    request.num_stale_output_tokens = 0


def evict_tail(sched):
    kvm = sched.kv_cache_manager
    ids = set()
    for req in sched.running:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kvm.coordinator.single_type_managers:
            ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]
                       if not b.is_null)
    kvm.evict_blocks(ids)
