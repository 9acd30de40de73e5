def tail_block_ids(blocks, *, confirmed, computed, block_size):
    """Ids of the blocks from the one holding token `confirmed` to the end.

    Returns (ids, span) where span is how many blocks the lost step touched.
    """
    first, _offset = divmod(confirmed, block_size)  # a partial boundary block is dirty too
    span = -(-computed // block_size) - first
    k = len(blocks) - first
    tail = blocks[-k:] if k > 0 else []  # blocks[-0:] would be the whole list
    return [b.block_id for b in tail if not b.is_null], max(span, 0)
