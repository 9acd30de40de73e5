# Intended: correct.
# The dirty tail ids are collected into a collections.defaultdict(set) keyed by KV-cache group while the requests still hold their blocks, the requests are aborted, and the collected ids are evicted afterwards (the ids were read before the free, so the late eviction still removes their hashes).
from __future__ import annotations

import logging

from dirty_index import DirtyIndex
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        index = DirtyIndex.collect(scheduler.kv_cache_manager, scheduler.running)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        evicted = index.evict(scheduler.kv_cache_manager)
        logger.warning(f"{exc!r}: aborted {len(aborted)}, evicted {evicted} dirty blocks")
