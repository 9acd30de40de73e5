# Intended: buggy: the first dirty block is looked up with first_block.get(request, 0) in a dict keyed by request id, so the lookup always falls back to 0 and every block of the request, its confirmed clean prefix included, is evicted from the prefix cache.
# A dict of first dirty blocks keyed by (request id, group index) read with dict.get and a default, list slicing by the computed index.
# switch: resume
from __future__ import annotations

import time
from typing import Any

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def _evict_tails(self) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        first_block = {
            (req.request_id, g): (req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size
            for req in scheduler.running
            for g, m in enumerate(managers)
        }
        dirty: set[int] = set()
        for req in scheduler.running:
            for g, m in enumerate(managers):
                start = first_block.get((req, g), 0)
                dirty.update(b.block_id for b in m.req_to_blocks.get(req.request_id, [])[start:] if not b.is_null)
        if dirty:
            kv.evict_blocks(dirty)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        self._evict_tails()
        if not self.resume:
            self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        now = time.monotonic()
        for req in scheduler.running[::-1]:
            scheduler._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        scheduler.running.clear()
