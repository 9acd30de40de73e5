# Intended: correct.
# Idioms: small policy classes chosen by subclassing (ReleasePolicy -> AbortPolicy / PreemptPolicy, TailBoundary), an abstract policy base with abstractmethod, class attributes naming the policy classes, a property picking the policy from the switch.
# switch: RESUME
"""Fault handling as two pluggable policies: where the dirty tail starts and how
the request lets go of its blocks."""

from __future__ import annotations

import abc
import time

from vllm.v1.request import Request, RequestStatus


class TailBoundary:
    """Index of the first block of a request that the lost step may have written."""

    def confirmed_tokens(self, request: Request) -> int:
        return max(0, request.num_computed_tokens - request.num_in_flight_tokens)

    def first_index(self, request: Request, block_size: int) -> int:
        return self.confirmed_tokens(request) // block_size


class ReleasePolicy(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine
        self.scheduler = engine.scheduler

    @abc.abstractmethod
    def release(self, requests: list[Request]) -> None: ...


class AbortPolicy(ReleasePolicy):
    status = RequestStatus.FINISHED_ABORTED

    def release(self, requests: list[Request]) -> None:
        aborted = self.scheduler.finish_requests([r.request_id for r in requests], self.status)
        self.engine._send_abort_outputs(aborted)


class PreemptPolicy(ReleasePolicy):
    def release(self, requests: list[Request]) -> None:
        stamp = time.monotonic()
        for request in reversed(requests):
            self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, stamp)
            self.forget_lost_step(request)

    @staticmethod
    def forget_lost_step(request: Request) -> None:
        # The lost step's output frame never comes back: nothing to wait for.
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0


class FaultHandler:
    RESUME = False
    boundary_cls = TailBoundary
    abort_policy_cls = AbortPolicy
    resume_policy_cls = PreemptPolicy

    def __init__(self, engine) -> None:
        self.engine = engine
        self.boundary = self.boundary_cls()

    @property
    def policy(self) -> ReleasePolicy:
        cls = self.resume_policy_cls if self.RESUME else self.abort_policy_cls
        return cls(self.engine)

    def dirty_blocks(self, requests: list[Request]) -> set[int]:
        kv = self.engine.scheduler.kv_cache_manager
        ids: set[int] = set()
        for manager in kv.coordinator.single_type_managers:
            for request in requests:
                first = self.boundary.first_index(request, manager.block_size)
                held = manager.req_to_blocks.get(request.request_id, [])
                ids.update(block.block_id for block in held[first:] if not block.is_null)
        return ids

    def on_fault(self, exc: BaseException) -> None:
        policy = self.policy
        requests = list(self.engine.scheduler.running)
        self.engine.scheduler.kv_cache_manager.evict_blocks(self.dirty_blocks(requests))
        policy.release(requests)
