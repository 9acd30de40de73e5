# Intended: buggy: it evicts every hashed block each request holds rather than only the unconfirmed tail, so after a failed decode step the clean, confirmed prefix blocks are thrown out of the prefix cache too.
# Idioms: an EvictionBatch collected per KV-cache group and flushed once, then a list of
# Idioms: request ids aborted in a single batch; abort-only.
from __future__ import annotations

import logging

from eviction_batch import EvictionBatch
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _plan(self, scheduler):
        batch = EvictionBatch()
        aborts = []
        for req in scheduler.running:
            # The failed step may have touched any block of the request (we cannot
            # tell which ones the workers got to), so treat all of them as suspect.
            for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
                batch.add(
                    mgr.kv_cache_group_id,
                    (b.block_id for b in mgr.req_to_blocks.get(req.request_id, []) if b.block_hash is not None),
                )
            aborts.append(req.request_id)
        return batch, aborts

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        batch, aborts = self._plan(scheduler)
        logger.warning("fault: evicting %s, aborting %d requests", batch.summary(), len(aborts))
        if batch:
            batch.flush(scheduler.kv_cache_manager)
        if aborts:
            self.engine._send_abort_outputs(scheduler.finish_requests(aborts, RequestStatus.FINISHED_ABORTED))
