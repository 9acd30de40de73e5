# Intended: correct.
# Idioms: a class decorator that collects methods tagged by a hook decorator into ordered phases, phases run through getattr by method name.
"""Abort-only fault handler whose work is split into decorator-registered hooks."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from hookset import hook, with_hooks


@with_hooks
class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        batch = {"requests": list(self.engine.scheduler.running), "evict": set()}
        for phase in ("inspect", "cleanup", "finish"):
            self.run_phase(phase, batch)

    @hook("inspect")
    def find_unconfirmed_blocks(self, batch):
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        for req in batch["requests"]:
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in coordinator.single_type_managers:
                held = mgr.req_to_blocks.get(req.request_id) or []
                batch["evict"].update(
                    blk.block_id for blk in held[boundary // mgr.block_size :] if not blk.is_null
                )

    @hook("cleanup")
    def evict_unconfirmed_blocks(self, batch):
        if batch["evict"]:
            self.engine.scheduler.kv_cache_manager.evict_blocks(batch["evict"])

    @hook("finish", priority=10)
    def abort_requests(self, batch):
        ids = [r.request_id for r in batch["requests"]]
        if ids:
            batch["aborted"] = self.engine.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)

    @hook("finish", priority=90)
    def notify_clients(self, batch):
        if batch.get("aborted"):
            self.engine._send_abort_outputs(batch["aborted"])
