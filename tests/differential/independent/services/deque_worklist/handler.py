# Intended: correct.
# Idioms: collections.deque worklist drained with while/popleft, try/finally around the preempt, logging with lazy args.
"""Resume-only handler: every running request goes back to waiting with its clean prefix cached."""

from __future__ import annotations

import logging
import time
from collections import deque

log = logging.getLogger("vllm.ft.resume")


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        groups = kv.coordinator.single_type_managers
        pending = deque(sched.running)
        sched.running = []
        stamp = time.monotonic()
        while pending:
            req = pending.popleft()
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            dirty = set()
            for group in groups:
                owned = group.req_to_blocks[req.request_id]
                idx = boundary // group.block_size
                while idx < len(owned):
                    dirty.add(owned[idx].block_id)
                    idx += 1
            if dirty:
                log.debug("request %s: evicting %s", req.request_id, dirty)
                kv.evict_blocks(dirty)
            try:
                sched._preempt_request(req, stamp)
            finally:
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        log.warning("resumed after %s", exc)
