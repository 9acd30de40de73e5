# Intended: correct.
# Idioms: slotted frozen dataclass views with properties in a helper module, enumerate, nested comprehension.
"""Abort handler built on read-only request / group views."""

from __future__ import annotations

from views import GroupView, RequestView
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def _groups(self) -> list[GroupView]:
        managers = self.engine.scheduler.kv_cache_manager.coordinator.single_type_managers
        return [GroupView(i, m) for i, m in enumerate(managers)]

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        groups = self._groups()
        views = [RequestView(r) for r in scheduler.running]
        doomed = {block.block_id for view in views for group in groups for block in view.unconfirmed_blocks(group)}
        scheduler.kv_cache_manager.evict_blocks(doomed)
        self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
