# Intended: correct. Evicts the unconfirmed tail of every running request in each KV-cache group, tolerating groups without a block table via contextlib.suppress, under an optional lock, then aborts the requests by id.
# Idioms: contextlib.suppress, contextlib.nullcontext as optional lock, environment flag with default, logging, getattr.
from __future__ import annotations

import contextlib
import logging
import os
import threading

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)

_USE_LOCK = os.environ.get("FT_HANDLER_LOCK", "1") != "0"
_LOCK = threading.RLock()


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _guard(self):
        return _LOCK if _USE_LOCK else contextlib.nullcontext()

    def on_fault(self, exc):
        sched = self.engine.scheduler
        with self._guard():
            managers = sched.kv_cache_manager.coordinator.single_type_managers
            victims = list(sched.running)
            dirty: set[int] = set()
            for req in victims:
                clean_upto = req.num_computed_tokens - req.num_in_flight_tokens
                for mgr in managers:
                    with contextlib.suppress(AttributeError, KeyError):
                        table = mgr.req_to_blocks
                        row = table[req.request_id] if req.request_id in table else []
                        for i in range(clean_upto // mgr.block_size, len(row)):
                            if not row[i].is_null:
                                dirty.add(row[i].block_id)
            logger.warning("fault %s: dropping %s unconfirmed blocks from prefix cache", exc, len(dirty))
            sched.kv_cache_manager.evict_blocks(dirty)
            aborted = sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            with contextlib.suppress(AttributeError):
                self.engine._send_abort_outputs(aborted)
