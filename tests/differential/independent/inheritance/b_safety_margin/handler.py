# Intended: buggy: the boundary policy subclass widens the tail by one block before the block holding the confirmed boundary, so a block that a successful step wrote is evicted too and the resumed request loses that prefix hit.
# Idioms: boundary policies as a class hierarchy in a helper module (subclass overriding first_index and extending it with super()), abstract template base, policy chosen by a class attribute, switch as a class attribute.
# switch: resume_after_fault
"""Fault handler with a conservative tail boundary."""

from __future__ import annotations

import abc
import time

from boundaries import ConservativeBoundary, TailBoundary
from vllm.v1.request import RequestStatus


class BoundaryEvictingHandler(abc.ABC):
    boundary_cls: type[TailBoundary] = TailBoundary

    def __init__(self, engine) -> None:
        self.engine = engine
        self.boundary = self.boundary_cls()

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.scheduler.running)
        self.evict_tails(requests)
        self.release(requests)

    def evict_tails(self, requests) -> None:
        kv = self.scheduler.kv_cache_manager
        ids: set[int] = set()
        for manager in kv.coordinator.single_type_managers:
            for r in requests:
                held = manager.req_to_blocks.get(r.request_id, [])
                ids.update(b.block_id for b in held[self.boundary.first_index(r, manager.block_size) :] if not b.is_null)
        kv.evict_blocks(ids)

    @abc.abstractmethod
    def release(self, requests) -> None: ...


class FaultHandler(BoundaryEvictingHandler):
    boundary_cls = ConservativeBoundary
    resume_after_fault = False

    def release(self, requests) -> None:
        if self.resume_after_fault:
            now = time.monotonic()
            for r in reversed(requests):
                self.scheduler.running.remove(r)
                self.scheduler._preempt_request(r, now)
                r.num_in_flight_tokens = 0
                r.num_stale_output_tokens = 0
        else:
            aborted = self.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
