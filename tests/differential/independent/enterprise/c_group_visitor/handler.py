# Intended: correct.
# Idioms: visitor pattern over the KV-cache group managers (accept/visit double dispatch through small adapter classes), an Enum for the recovery mode, a class attribute switch mapped to the enum by a @property.
# switch: resume_enabled
"""Fault handler that walks every KV-cache group with a visitor."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

from group_visitors import KVGroupNode, UnconfirmedTailCollector
from modes import RecoveryMode


class FaultHandler:
    resume_enabled = False

    def __init__(self, engine, collector_factory=UnconfirmedTailCollector) -> None:
        self.engine = engine
        self._collector_factory = collector_factory

    @property
    def mode(self) -> RecoveryMode:
        return RecoveryMode.RESUME if self.resume_enabled else RecoveryMode.ABORT

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        nodes = [KVGroupNode(i, m) for i, m in enumerate(kv.coordinator.single_type_managers)]
        requests = list(scheduler.running)
        collector = self._collector_factory(requests)
        for node in nodes:
            node.accept(collector)
        kv.evict_blocks(collector.block_ids)

        if self.mode is RecoveryMode.ABORT:
            aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        stamp = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, stamp)
            request.num_stale_output_tokens = 0
            request.num_in_flight_tokens = 0
