"""Build an eviction plan: {group index: [block ids]}."""
from collections import defaultdict


def confirmed_tokens(req):
    return req.num_computed_tokens - req.num_in_flight_tokens


def build_plan(running, managers):
    plan = defaultdict(list)
    for gid, mgr in enumerate(managers):
        for req in running:
            first = confirmed_tokens(req) // mgr.block_size
            for blk in mgr.req_to_blocks.get(req.request_id, [])[first:]:
                if not blk.is_null:
                    plan[gid].append(blk.block_id)
    return plan
