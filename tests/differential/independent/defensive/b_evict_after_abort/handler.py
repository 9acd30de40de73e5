# Intended: buggy: the requests are aborted first and the tail is looked up afterwards, when finish_requests has already freed the blocks and dropped the requests' block lists, so nothing is evicted.
# Idioms: abort-first then cleanup in finally, contextlib.suppress, snapshot of request counters before the abort, logging with %s.
from __future__ import annotations

import contextlib
import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.cleanup_errors: list[Exception] = []

    def _post_abort_cleanup(self, sched, snapshot):
        kv = sched.kv_cache_manager
        ids = set()
        for rid, confirmed in snapshot.items():
            for mgr in kv.coordinator.single_type_managers:
                with contextlib.suppress(KeyError, AttributeError):
                    blocks = mgr.req_to_blocks.get(rid, [])
                    ids.update(b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null)
        kv.evict_blocks(ids)
        log.info("post-abort cleanup evicted %s blocks", len(ids))

    def on_fault(self, exc):
        sched = self.engine.scheduler
        snapshot = {r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in sched.running}
        try:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            if hasattr(self.engine, "_send_abort_outputs"):
                self.engine._send_abort_outputs(aborted)
        except Exception:
            log.exception("abort after fault %s failed", exc)
            raise
        finally:
            try:
                self._post_abort_cleanup(sched, snapshot)
            except Exception as err:
                self.cleanup_errors.append(err)
                log.error("cleanup failed: %s", err)
