"""Which requests need their tail evicted (a wrong assumption lives here)."""

MAX_DIRTY_TOKENS_PER_STEP = 16  # "a step adds at most one block": true for decode only


def needs_eviction(request) -> bool:
    return 0 < request.num_in_flight_tokens <= MAX_DIRTY_TOKENS_PER_STEP


def pick(batch):
    keep = []
    for item in batch:
        if not needs_eviction(item):
            continue
        keep.append(item)
    return keep, len(batch) - len(keep)
