# Intended: correct.
# Idioms: __getattr__ proxies that forward to the scheduler and the KV-cache manager, properties on the proxy classes, getattr with a default for an optional engine hook.
"""Abort-only fault handler written against forwarding proxies."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from sched_facade import SchedulerFacade


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    @property
    def scheduler(self):
        return SchedulerFacade(self.engine.scheduler)

    def on_fault(self, exc):
        sched = self.scheduler
        running = sched.running_snapshot()
        kv = sched.kv
        unconfirmed = set()
        for req in running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            unconfirmed |= kv.blocks_from(req.request_id, confirmed)
        if unconfirmed:
            kv.evict_blocks(unconfirmed)
        aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        getattr(self.engine, "_send_abort_outputs", lambda reqs: None)(aborted)
