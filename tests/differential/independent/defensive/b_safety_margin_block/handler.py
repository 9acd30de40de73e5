# Intended: buggy: it evicts from one block before the block holding the confirmed boundary ("safety margin"), so a clean confirmed block is dropped from the prefix cache along with the tail before the abort.
# Idioms: environment-configured margin with default, guard clause, threading.Lock, try/except with logging and re-raise.
from __future__ import annotations

import logging
import os
import threading

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)
MARGIN_BLOCKS = int(os.environ.get("FT_EVICT_MARGIN_BLOCKS", "1"))
_lock = threading.Lock()


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not sched.running:
            return
        with _lock:
            try:
                ids = set()
                for req in sched.running:
                    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                    for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                        start = max(confirmed // mgr.block_size - MARGIN_BLOCKS, 0)
                        ids.update(
                            b.block_id for b in mgr.req_to_blocks.get(req.request_id, ())[start:] if not b.is_null
                        )
                sched.kv_cache_manager.evict_blocks(ids)
            except Exception:
                log.exception("evict failed")
                raise
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
        log.warning("fault %s: aborted %s", exc, len(aborted))
