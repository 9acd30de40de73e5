# Intended: buggy: evicts every block of every running request from the prefix cache, including the clean prefix confirmed by earlier steps (over-eviction).
# Idioms: map/filter with operator.attrgetter, itertools.chain, frozenset, module-level constant logger.
"""Abort handler that plays it safe with the prefix cache."""

from __future__ import annotations

import itertools
import logging
from operator import attrgetter

from vllm.v1.request import RequestStatus

LOG = logging.getLogger(__name__)
_block_id = attrgetter("block_id")


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        request_ids = [r.request_id for r in scheduler.running]
        owned = itertools.chain.from_iterable(m.req_to_blocks[rid] for rid in request_ids for m in managers)
        ids = frozenset(map(_block_id, filter(lambda b: not b.is_null, owned)))
        LOG.warning("fault %s: dropping %d cached blocks of %d requests", exc, len(ids), len(request_ids))
        kv.evict_blocks(set(ids))
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
