"""Recursive generators over a request's KV blocks."""


def unconfirmed_tail(request, managers):
    """Yield the id of every block at or past the confirmed boundary, per group."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    yield from _per_group(request.request_id, confirmed, managers, 0)


def _per_group(request_id, confirmed, managers, group):
    if group == len(managers):
        return
    manager = managers[group]
    blocks = manager.req_to_blocks.get(request_id, [])
    yield from _from_index(blocks, confirmed // manager.block_size)
    yield from _per_group(request_id, confirmed, managers, group + 1)


def _from_index(blocks, index):
    if index >= len(blocks):
        return
    if not blocks[index].is_null:
        yield blocks[index].block_id
    yield from _from_index(blocks, index + 1)


def over_requests(requests, managers):
    if not requests:
        return
    yield from unconfirmed_tail(requests[0], managers)
    yield from over_requests(requests[1:], managers)
