# Intended: correct. Probes the scheduler's KV-cache API with hasattr/getattr/isinstance, evicts exactly the unconfirmed tail of every running request over every group, and aborts those requests by id.
# Idioms: hasattr/getattr feature checks, isinstance checks, guard clauses, custom exception instead of assert, logging.
from __future__ import annotations

import logging
from collections.abc import Sequence

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class UnsupportedScheduler(RuntimeError):
    pass


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    @staticmethod
    def _groups(kv):
        coordinator = getattr(kv, "coordinator", None)
        groups = getattr(coordinator, "single_type_managers", None)
        if not isinstance(groups, Sequence) or not groups:
            raise UnsupportedScheduler("KV-cache coordinator exposes no groups")
        return groups

    def _unconfirmed(self, kv, request):
        n_done = getattr(request, "num_computed_tokens", 0)
        n_flight = getattr(request, "num_in_flight_tokens", 0)
        if not isinstance(n_done, int) or not isinstance(n_flight, int):
            raise UnsupportedScheduler("token counters are not integers")
        confirmed = n_done - n_flight
        result = set()
        for grp in self._groups(kv):
            size = getattr(grp, "block_size", None)
            if not isinstance(size, int) or size <= 0:
                raise UnsupportedScheduler(f"bad block size {size!r}")
            table = getattr(grp, "req_to_blocks", {})
            for blk in table.get(request.request_id, ())[confirmed // size :]:
                if getattr(blk, "is_null", False):
                    continue
                result.add(blk.block_id)
        return result

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(getattr(sched, "running", ()))
        if not running:
            log.info("fault %s but no running requests", exc)
            return
        kv = getattr(sched, "kv_cache_manager", None)
        if kv is None or not hasattr(kv, "evict_blocks"):
            raise UnsupportedScheduler("scheduler cannot evict blocks; refusing to abort with dirty KV")
        dirty = set()
        for request in running:
            dirty |= self._unconfirmed(kv, request)
        kv.evict_blocks(dirty)
        ids = [r.request_id for r in running]
        aborted = sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        log.warning("fault %s: evicted %s blocks, aborted %s of %s", exc, len(dirty), len(aborted), len(ids))
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
