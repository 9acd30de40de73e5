"""Block id bookkeeping for the fault handler (old style, out-parameters)."""


def gather_tail_block_ids(managers, num_groups, request_id, num_computed, num_in_flight, out_ids, out_per_group):
    """Append to out_ids the ids of the blocks of request_id that may hold
    KV of tokens whose step never came back, and add the count per group
    to out_per_group (a list as long as num_groups).  Returns nothing."""
    confirmed = num_computed - num_in_flight
    if confirmed < 0:
        confirmed = 0
    g = 0
    while g < num_groups:
        mgr = managers[g]
        size = mgr.block_size
        idx = confirmed // size
        held = mgr.req_to_blocks.get(request_id, None)
        if held is not None:
            while idx < len(held):
                blk = held[idx]
                if blk.is_null == False:
                    out_ids.append(blk.block_id)
                    out_per_group[g] = out_per_group[g] + 1
                idx = idx + 1
        g = g + 1


def clear_counts(counts, n):
    del counts[:]
    k = 0
    while k < n:
        counts.append(0)
        k = k + 1
