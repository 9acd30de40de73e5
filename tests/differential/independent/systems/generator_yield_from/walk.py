"""Lazy walks over the scheduler's KV layout."""
from consts import NO_BLOCK, BlockStream


def _tail_of(group_index, manager, request) -> BlockStream:
    boundary = request.num_computed_tokens - request.num_in_flight_tokens
    lo = boundary // manager.block_size
    chain = manager.req_to_blocks.get(request.request_id, ())
    for pos, blk in enumerate(chain):
        if pos < lo or blk.is_null:
            continue
        yield group_index, pos, blk.block_id


def _groups_of(managers, request) -> BlockStream:
    for gi, mgr in enumerate(managers):
        yield from _tail_of(gi, mgr, request)


def unconfirmed(managers, requests) -> BlockStream:
    for rq in requests:
        yield from _groups_of(managers, rq)


def ids_only(stream: BlockStream):
    for _g, _pos, bid in stream:
        if bid != NO_BLOCK:
            yield bid
