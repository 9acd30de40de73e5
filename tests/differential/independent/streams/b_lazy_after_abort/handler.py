# Intended: buggy: the generator that reads each request's blocks is built before the abort but only drained after finish_requests has freed the requests, so req_to_blocks no longer lists them and nothing is evicted: every dirty block stays in the prefix cache.
# Idioms: a lazily built generator expression over requests and KV-cache groups, abort first and a deferred sink that materialises the generator afterwards, logging the count.
"""Abort-on-fault handler that scrubs the unconfirmed tails "after the fact".

The tail stream is described up front (a generator expression) and evaluated
once the requests are aborted, so the abort is not delayed by the scan.
"""

from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        running = list(sched.running)

        tails = (
            block.block_id
            for req in running
            for mgr in managers
            for block in mgr.req_to_blocks.get(req.request_id, ())[
                max(req.num_computed_tokens - req.num_in_flight_tokens, 0) // mgr.block_size :
            ]
            if not block.is_null
        )

        aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

        dirty = set(tails)
        kv.evict_blocks(dirty)
        logger.warning("fault %s: aborted %d requests, evicted %d blocks", type(exc).__name__, len(aborted), len(dirty))
