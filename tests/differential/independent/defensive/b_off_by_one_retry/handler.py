# Intended: buggy: the first evicted block index is one past the block holding the confirmed boundary, so the block where the unconfirmed tail starts stays cached when the requests are aborted.
# Idioms: bounded retry loop, error list, custom exception, logging with %s, hasattr check.
from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)
RETRIES = int(__import__("os").environ.get("FT_EVICT_RETRIES", "2"))


class ScrubFailed(RuntimeError):
    pass


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.failures: list[str] = []

    def _ids(self, sched):
        ids = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                # skip the block that holds the boundary: it is "partially confirmed"
                start = confirmed // mgr.block_size + 1
                row = mgr.req_to_blocks.get(req.request_id, [])
                ids.update(b.block_id for b in row[start:] if not b.is_null)
        return ids

    def on_fault(self, exc):
        sched = self.engine.scheduler
        for attempt in range(max(RETRIES, 1)):
            try:
                sched.kv_cache_manager.evict_blocks(self._ids(sched))
                break
            except Exception as err:
                self.failures.append(f"attempt {attempt}: {err}")
                logger.warning("evict attempt %s failed: %s", attempt, err)
        else:
            raise ScrubFailed("; ".join(self.failures))
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
        logger.error("fault %s: aborted %s requests", exc, len(aborted))
