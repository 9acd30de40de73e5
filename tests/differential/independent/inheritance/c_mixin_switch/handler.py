# Intended: correct.
# Idioms: abstract base with template method, cooperative mixins (tail eviction, counter reset) chained through super(), a property for the KV-cache managers, the abort/resume choice as a class attribute on the leaf.
# switch: resume_on_fault
"""Fault handler assembled from mixins: evict each running request's unconfirmed
tail, then either abort it or send it back to waiting to resume."""

from __future__ import annotations

import abc
import time

from vllm.v1.request import Request, RequestStatus


class FaultHandlerBase(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        requests = self.select_requests()
        self.before_release(requests)
        self.release(requests)
        self.after_release(requests)

    def select_requests(self) -> list[Request]:
        return list(self.scheduler.running)

    def before_release(self, requests: list[Request]) -> None:
        pass

    @abc.abstractmethod
    def release(self, requests: list[Request]) -> None: ...

    def after_release(self, requests: list[Request]) -> None:
        pass


class TailEvictionMixin:
    """Drops the blocks of the unconfirmed tail from the prefix cache."""

    @property
    def kv_managers(self):
        return self.scheduler.kv_cache_manager.coordinator.single_type_managers

    def tail_block_ids(self, request: Request) -> set[int]:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        out: set[int] = set()
        for manager in self.kv_managers:
            blocks = manager.req_to_blocks.get(request.request_id, [])
            out.update(b.block_id for b in blocks[confirmed // manager.block_size :] if not b.is_null)
        return out

    def before_release(self, requests: list[Request]) -> None:
        ids: set[int] = set()
        for request in requests:
            ids |= self.tail_block_ids(request)
        self.scheduler.kv_cache_manager.evict_blocks(ids)
        super().before_release(requests)


class CounterResetMixin:
    """A preempted request must not wait for the output of the lost step."""

    def after_release(self, requests: list[Request]) -> None:
        super().after_release(requests)
        for request in requests:
            if request.status == RequestStatus.PREEMPTED:
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0


class FaultHandler(TailEvictionMixin, CounterResetMixin, FaultHandlerBase):
    resume_on_fault = False

    def release(self, requests: list[Request]) -> None:
        if self.resume_on_fault:
            now = time.monotonic()
            for request in reversed(requests):
                self.scheduler.running.remove(request)
                self.scheduler._preempt_request(request, now)
        else:
            aborted = self.scheduler.finish_requests(
                [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
