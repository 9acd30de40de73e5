# Intended: correct.
# Idioms: callbacks built as closures in __init__ and stored in an ordered list on the handler, block ids read through KVCacheManager.get_block_ids with each group's block size from the KV-cache config.
"""Abort-on-fault handler composed of closures.

``__init__`` builds the callbacks once over the scheduler's KV-cache manager;
``on_fault`` runs them in order over the list of running requests.
"""

from vllm.v1.request import RequestStatus


def _make_tail_evictor(kv_manager):
    group_block_sizes = [
        g.kv_cache_spec.block_size for g in kv_manager.kv_cache_config.kv_cache_groups
    ]
    null_id = kv_manager.block_pool.null_block.block_id

    def evict_tail(requests):
        doomed = set()
        for req in requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids_per_group = kv_manager.get_block_ids(req.request_id)
            for block_size, ids in zip(group_block_sizes, ids_per_group):
                doomed.update(i for i in ids[confirmed // block_size:] if i != null_id)
        if doomed:
            kv_manager.evict_blocks(doomed)
        return requests

    return evict_tail


def _make_aborter(engine):
    def abort(requests):
        aborted = engine.scheduler.finish_requests(
            [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
        )
        engine._send_abort_outputs(aborted)
        return aborted

    return abort


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.callbacks = [
            _make_tail_evictor(engine.scheduler.kv_cache_manager),
            _make_aborter(engine),
        ]

    def on_fault(self, exc):
        requests = list(self.engine.scheduler.running)
        for callback in self.callbacks:
            callback(requests)
