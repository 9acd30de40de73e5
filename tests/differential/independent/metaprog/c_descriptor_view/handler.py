# Intended: correct.
# Idioms: descriptors (__set_name__, __get__/__set__) on a request view class, a caching derived-value descriptor, getattr dispatch on a mode name.
# switch: requeue
"""Fault handler working on request views made of descriptors."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

from req_view import RequestView


class FaultHandler:
    requeue = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        views = [RequestView(r) for r in sched.running]
        self._drop_unconfirmed(sched, views)
        handler = getattr(self, "_requeue" if self.requeue else "_abort")
        handler(sched, views)

    def _drop_unconfirmed(self, sched, views):
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        ids = {
            block.block_id
            for mgr in managers
            for view in views
            for block in mgr.req_to_blocks.get(view.request_id, [])[view.first_dirty_block(mgr.block_size) :]
            if not block.is_null
        }
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)

    def _abort(self, sched, views):
        ids = [v.request_id for v in views]
        if ids:
            self.engine._send_abort_outputs(sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED))

    def _requeue(self, sched, views):
        now = time.monotonic()
        for view in reversed(views):
            sched.running.remove(view.request)
            sched._preempt_request(view.request, now)
            view.forget_lost_step()
