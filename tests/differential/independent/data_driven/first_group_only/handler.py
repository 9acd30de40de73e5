# Intended: buggy: the managers are zipped (without strict=True) with a one-element tuple holding the scheduler's block size, so zip stops after the first KV-cache group and the dirty tail of every other group (the sliding-window group) stays cached.
# Per-group (manager, block size) pairs from zip, a defaultdict(set) keyed by group index, and itertools.chain to merge them.
# switch: resume_requests
from __future__ import annotations

import time
from collections import defaultdict
from itertools import chain
from typing import Any

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_requests: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def _dirty_ids(self) -> set[int]:
        scheduler = self.engine.scheduler
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        sizes = (scheduler.block_size,)
        by_group: defaultdict[int, set[int]] = defaultdict(set)
        for group, (mgr, size) in enumerate(zip(managers, sizes)):
            for req in scheduler.running:
                if not req.num_in_flight_tokens:
                    continue
                first = (req.num_computed_tokens - req.num_in_flight_tokens) // size
                by_group[group] |= {
                    b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[first:] if not b.is_null
                }
        return set(chain.from_iterable(by_group.values()))

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        if dirty := self._dirty_ids():
            scheduler.kv_cache_manager.evict_blocks(dirty)
        if not self.resume_requests:
            self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        now = time.monotonic()
        while scheduler.running:
            req = scheduler.running.pop()
            scheduler._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
