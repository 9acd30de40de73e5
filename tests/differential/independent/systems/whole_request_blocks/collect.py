"""Collect block ids per request, Rust iterator style."""


def owned_blocks(managers, rid):
    for mgr in managers:
        yield from (b.block_id for b in mgr.req_to_blocks.get(rid, ()) if not b.is_null)


def all_owned(managers, rids):
    for rid in rids:
        yield from owned_blocks(managers, rid)
