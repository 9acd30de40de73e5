# Intended: correct.
# Idioms: generator functions chained with yield from, itertools.islice for the tail, materialising the plan (set, tuple) before the imperative abort.
from __future__ import annotations

from vllm.v1.request import RequestStatus

from kvtail import dirty_block_ids, managers_of


class FaultHandler:
    """Abort on fault, but never leave uncomputed KV behind in the prefix cache."""

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        requests = tuple(scheduler.running)
        # Materialise now: the abort below frees the blocks and pops req_to_blocks.
        dirty = set(dirty_block_ids(requests, managers_of(scheduler)))
        scheduler.kv_cache_manager.evict_blocks(dirty)
        aborted = scheduler.finish_requests(
            (r.request_id for r in requests), RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
