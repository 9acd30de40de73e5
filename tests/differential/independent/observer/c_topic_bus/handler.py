# Intended: correct.
# Idioms: topic-string pub-sub bus in a helper module, listener priorities, listeners bound in __init__, a dataclass event carrying requests and per-group block ids.
# switch: RESUME
"""Fault handler built on a topic bus.

On a fault the handler publishes one event object on three topics in turn:
``fault.tail`` (listeners find the unconfirmed tail of every running request),
``fault.evict`` (listeners drop those blocks from the prefix cache) and then
``fault.abort`` or ``fault.resume`` depending on ``RESUME``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from vllm.v1.request import Request, RequestStatus

from kvbus import TopicBus


@dataclass
class FaultEvent:
    exc: BaseException
    requests: list[Request]
    # group index -> block ids of the unconfirmed tail in that group
    tail_block_ids: dict[int, set[int]] = field(default_factory=dict)


class FaultHandler:
    RESUME = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self.bus = TopicBus()
        self.bus.subscribe("fault.tail", self._collect_tail, priority=10)
        self.bus.subscribe("fault.evict", self._evict_tail, priority=10)
        self.bus.subscribe("fault.abort", self._abort_all)
        self.bus.subscribe("fault.resume", self._requeue_all)

    # -- listeners -------------------------------------------------------

    def _collect_tail(self, event: FaultEvent) -> None:
        managers = self.engine.scheduler.kv_cache_manager.coordinator.single_type_managers
        for request in event.requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for group, manager in enumerate(managers):
                held = manager.req_to_blocks.get(request.request_id) or []
                first_dirty = confirmed // manager.block_size
                ids = event.tail_block_ids.setdefault(group, set())
                ids.update(b.block_id for b in held[first_dirty:] if not b.is_null)

    def _evict_tail(self, event: FaultEvent) -> None:
        ids = set().union(*event.tail_block_ids.values()) if event.tail_block_ids else set()
        if ids:
            self.engine.scheduler.kv_cache_manager.evict_blocks(ids)

    def _abort_all(self, event: FaultEvent) -> None:
        scheduler = self.engine.scheduler
        aborted = scheduler.finish_requests(
            [r.request_id for r in event.requests], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)

    def _requeue_all(self, event: FaultEvent) -> None:
        scheduler = self.engine.scheduler
        now = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, now)
            # The failed step's output never arrives: nothing is in flight
            # and there is no stale output to wait for.
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    # -- entry point -----------------------------------------------------

    def on_fault(self, exc: BaseException) -> None:
        event = FaultEvent(exc=exc, requests=list(self.engine.scheduler.running))
        self.bus.publish("fault.tail", event)
        self.bus.publish("fault.evict", event)
        self.bus.publish("fault.resume" if self.RESUME else "fault.abort", event)
