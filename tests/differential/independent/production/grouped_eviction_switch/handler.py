# Intended: correct.
# Dirty block ids are grouped per KV-cache group in a collections.defaultdict(set) and evicted with one call per group; a boolean soft_recovery switch then either requeues (counters cleared) or aborts.
# switch: soft_recovery
from __future__ import annotations

import logging
import time
from collections import defaultdict

from vllm.v1.request import Request, RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine
        self.soft_recovery = False

    @property
    def scheduler(self):
        return self.engine.scheduler

    def _dirty_by_group(self, requests: list[Request]) -> dict[int, set[int]]:
        by_group: defaultdict[int, set[int]] = defaultdict(set)
        managers = self.scheduler.kv_cache_manager.coordinator.single_type_managers
        for request in requests:
            if request.num_in_flight_tokens == 0:
                continue  # nothing of this request was in the lost step
            boundary = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in managers:
                blocks = manager.req_to_blocks.get(request.request_id, [])
                by_group[manager.kv_cache_group_id].update(
                    b.block_id for b in blocks[boundary // manager.block_size :] if not b.is_null
                )
        return by_group

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.scheduler
        faulted = list(scheduler.running)
        for group_id, ids in sorted(self._dirty_by_group(faulted).items()):
            logger.debug(f"group {group_id}: evicting {len(ids)} unconfirmed blocks")
            scheduler.kv_cache_manager.evict_blocks(ids)
        if not self.soft_recovery:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        stamp = time.monotonic()
        del scheduler.running[:]
        for request in reversed(faulted):
            scheduler._preempt_request(request, stamp)
            request.num_in_flight_tokens, request.num_stale_output_tokens = 0, 0
        logger.warning(f"{exc!r}: requeued {len(faulted)} requests")
