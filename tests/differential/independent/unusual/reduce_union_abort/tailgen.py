"""Generators over the block ids a failed step may have left dirty."""


def _group_tail(manager, request_id, confirmed):
    first = confirmed // manager.block_size
    for block in manager.req_to_blocks.get(request_id, ())[first:]:
        if not block.is_null:
            yield block.block_id


def unconfirmed_block_ids(kv, request):
    """Block ids covering [num_computed - num_in_flight, num_computed), every group."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    for manager in kv.coordinator.single_type_managers:
        yield from _group_tail(manager, request.request_id, confirmed)
