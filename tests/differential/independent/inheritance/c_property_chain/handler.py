# Intended: correct.
# Idioms: a request proxy class (__getattr__ delegation) with a property chain (confirmed -> first dirty index per group) and a cached_property tail, an abstract handler base with abstractmethod release, two leaf-ish subclasses (abort, resume) and FaultHandler delegating to one of them by a switch, extending parents through super().
# switch: resume_requests
"""Fault handling written around a FaultedRequest proxy."""

from __future__ import annotations

import abc
import time
from functools import cached_property

from vllm.v1.request import RequestStatus


class FaultedRequest:
    def __init__(self, request, kv_cache_manager) -> None:
        self._request = request
        self._kv = kv_cache_manager

    def __getattr__(self, name):
        return getattr(self._request, name)

    @property
    def unwrapped(self):
        return self._request

    @property
    def confirmed(self) -> int:
        return max(0, self.num_computed_tokens - self.num_in_flight_tokens)

    @property
    def group_block_sizes(self) -> list[int]:
        return [m.block_size for m in self._kv.coordinator.single_type_managers]

    @property
    def first_dirty_indices(self) -> list[int]:
        return [self.confirmed // size for size in self.group_block_sizes]

    @cached_property
    def tail_block_ids(self) -> frozenset[int]:
        groups = self._kv.get_blocks(self.request_id).blocks
        return frozenset(
            block.block_id
            for blocks, first in zip(groups, self.first_dirty_indices, strict=True)
            for block in list(blocks)[first:]
            if not block.is_null
        )


class BaseRecovery(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine
        self.scheduler = engine.scheduler
        self.kv = engine.scheduler.kv_cache_manager

    def run(self) -> None:
        faulted = [FaultedRequest(r, self.kv) for r in self.scheduler.running]
        self.evict(faulted)
        self.release(faulted)

    def evict(self, faulted: list[FaultedRequest]) -> None:
        self.kv.evict_blocks(set().union(*(f.tail_block_ids for f in faulted)))

    @abc.abstractmethod
    def release(self, faulted: list[FaultedRequest]) -> None: ...


class AbortRecovery(BaseRecovery):
    def release(self, faulted):
        aborted = self.scheduler.finish_requests([f.request_id for f in faulted], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)


class ResumeRecovery(BaseRecovery):
    def release(self, faulted):
        now = time.monotonic()
        for f in reversed(faulted):
            self.scheduler.running.remove(f.unwrapped)
            self.scheduler._preempt_request(f.unwrapped, now)
        self.after_preempt(faulted)

    def after_preempt(self, faulted):
        for f in faulted:
            f.unwrapped.num_in_flight_tokens = 0
            f.unwrapped.num_stale_output_tokens = 0


class FaultHandler:
    resume_requests = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def recovery_cls(self) -> type[BaseRecovery]:
        return ResumeRecovery if self.resume_requests else AbortRecovery

    def on_fault(self, exc: BaseException) -> None:
        self.recovery_cls()(self.engine).run()
