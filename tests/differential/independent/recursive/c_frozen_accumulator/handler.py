# Intended: correct.
# Idioms: module-level tail-recursive functions with an immutable tuple accumulator passed down and returned at the base case, recursion over (group block-id list, group block size) pairs from get_block_ids, a thin class wrapper; aborts everything.
"""Abort-all fault handler that first drops every running request's unconfirmed KV tail."""

from vllm.v1.request import RequestStatus


def _group_tail(ids_by_group, sizes, confirmed, acc=()):
    if not ids_by_group:
        return acc
    ids, size = ids_by_group[0], sizes[0]
    return _group_tail(ids_by_group[1:], sizes[1:], confirmed, acc + tuple(ids[confirmed // size :]))


def _all_tails(kv, requests, sizes, acc=()):
    if not requests:
        return acc
    req = requests[0]
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    ids_by_group = kv.get_block_ids(req.request_id)
    return _all_tails(kv, requests[1:], sizes, _group_tail(ids_by_group, sizes, confirmed, acc))


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        sizes = tuple(m.block_size for m in kv.coordinator.single_type_managers)
        tails = _all_tails(kv, tuple(scheduler.running), sizes)
        null_id = kv.block_pool.null_block.block_id
        doomed = {block_id for block_id in tails if block_id != null_id}
        if doomed:
            kv.evict_blocks(doomed)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
