# Intended: correct.
# Idioms: itertools.tee splits one request stream into an eviction branch and an abort branch; chain.from_iterable flattens per-group tails lazily; the eviction branch is drained into a set before the abort branch is read.
"""Abort every running request after a fault, first dropping the KV blocks
its failed step left in the prefix cache.

One pass over ``scheduler.running`` feeds two consumers through
``itertools.tee``: the eviction branch turns each request into the ids of its
unconfirmed tail, the abort branch into its request id.
"""

from __future__ import annotations

from itertools import chain, tee

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def _tail_ids(self, request):
        kv = self.engine.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(request.request_id) or ()
            first = max(confirmed, 0) // mgr.block_size
            yield from (b.block_id for b in blocks[first:] if not b.is_null)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        for_evict, for_abort = tee(iter(tuple(scheduler.running)))

        dirty = set(chain.from_iterable(map(self._tail_ids, for_evict)))
        if dirty:
            scheduler.kv_cache_manager.evict_blocks(dirty)

        request_ids = [req.request_id for req in for_abort]
        aborted = scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
