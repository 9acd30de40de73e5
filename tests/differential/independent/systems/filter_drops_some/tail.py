"""Per-group tail block ids."""


def tail_block_ids(managers, request):
    settled = request.num_computed_tokens - request.num_in_flight_tokens
    for mgr in managers:
        row = mgr.req_to_blocks.get(request.request_id, ())
        for pos in range(settled // mgr.block_size, len(row)):
            if not row[pos].is_null:
                yield row[pos].block_id
