# Intended: buggy: it invalidates the prefix cache with a whole-cache reset before aborting, while the running requests still hold their blocks, so the reset refuses to run (it only clears an unused pool) and the dirty tail keeps its hashes.
# Idioms: a __getattr__ dispatcher that resolves an operation name against the scheduler, KV-cache manager and block pool, operation names built as strings and called dynamically.
"""Abort-only fault handler that invalidates the prefix cache by named operation."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from cache_ops import CacheOps


class FaultHandler:
    # Steps of the recovery, by operation name on the cache owners.
    INVALIDATE = "reset_prefix_cache"
    FINISH = "finish_requests"

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ops = CacheOps(sched)
        # A fault may leave any block's KV half written: drop every cached hash.
        getattr(ops, self.INVALIDATE)()
        ids = [r.request_id for r in sched.running]
        aborted = getattr(ops, self.FINISH)(ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
