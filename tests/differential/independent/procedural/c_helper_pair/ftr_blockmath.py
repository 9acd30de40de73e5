"""Tail-of-request block arithmetic, kept free of scheduler objects where possible."""

# per process counters, read by the metrics endpoint
EVICT_COUNTS = {}


def evict_tail(kv_mgr, managers, ngroups, req_id, n_computed, n_in_flight, out_counts):
    """Evict from the prefix cache the blocks of req_id from the block that
    holds the first unconfirmed token to the last block it holds, in each of
    the ngroups groups.  Adds the number of ids per group to out_counts
    (a dict group -> int).  Returns True when anything was sent to evict."""
    first_tok = n_computed - n_in_flight
    if first_tok < 0:
        first_tok = 0
    todo = set()
    g = 0
    while g < ngroups:
        mgr = managers[g]
        blocks = mgr.req_to_blocks.get(req_id)
        if blocks is None or len(blocks) == 0:
            g = g + 1
            continue
        start = first_tok // mgr.block_size
        cnt = 0
        j = start
        while j < len(blocks):
            if not blocks[j].is_null:
                todo.add(blocks[j].block_id)
                cnt = cnt + 1
            j = j + 1
        if g in out_counts:
            out_counts[g] = out_counts[g] + cnt
        else:
            out_counts[g] = cnt
        g = g + 1
    if not todo:
        return False
    kv_mgr.evict_blocks(todo)
    if req_id in EVICT_COUNTS:
        EVICT_COUNTS[req_id] = EVICT_COUNTS[req_id] + len(todo)
    else:
        EVICT_COUNTS[req_id] = len(todo)
    return True
