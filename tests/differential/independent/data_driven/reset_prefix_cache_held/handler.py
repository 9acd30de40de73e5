# Intended: buggy: instead of evicting the unconfirmed tail it calls reset_prefix_cache() before aborting, while the running requests still hold their blocks, so the reset refuses (returns False) and the dirty tail blocks keep their hashes after the abort frees them.
# A Counter of block counts per request from sum over groups, logged with most_common, then one reset and one abort.
from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        held = Counter(
            {
                req.request_id: sum(len(m.req_to_blocks.get(req.request_id, ())) for m in managers)
                for req in scheduler.running
            }
        )
        log.warning("fault %r with %d running requests, biggest %s", exc, len(held), held.most_common(1))
        # Drop every cached hash: the failed step may have written garbage anywhere.
        if not kv.reset_prefix_cache():
            log.warning("prefix cache reset refused")
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
