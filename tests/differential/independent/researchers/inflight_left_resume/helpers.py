"""Helpers shared by the resume handler."""

REQ_CACHE = {}  # module-level: request id -> last seen confirmed boundary


def remember(req):
    REQ_CACHE[req.request_id] = req.num_computed_tokens - req.num_in_flight_tokens
    return REQ_CACHE[req.request_id]


def tail_ids(managers, req_id, confirmed):
    out = []
    for m in managers:
        out.extend(b.block_id for b in m.req_to_blocks.get(req_id, [])[confirmed // m.block_size :] if not b.is_null)
    return out
