# Intended: buggy: eviction is an opt-in policy object and the default constructor installs the no-op policy, so with default arguments nothing is evicted and the dirty tail stays in the prefix cache.
# Idioms: eviction strategies as a small class hierarchy (abstract EvictionPolicy, NoEviction, TailEviction), classmethod alternative constructors (with_tail_eviction), abstract template base, leaf FaultHandler that aborts.
"""Abort on fault; the caller picks an eviction policy."""

from __future__ import annotations

import abc

from vllm.v1.request import RequestStatus


class EvictionPolicy(abc.ABC):
    @abc.abstractmethod
    def block_ids(self, kv_cache_manager, request) -> set[int]: ...


class NoEviction(EvictionPolicy):
    def block_ids(self, kv_cache_manager, request) -> set[int]:
        return set()


class TailEviction(EvictionPolicy):
    def block_ids(self, kv_cache_manager, request) -> set[int]:
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        ids: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            held = manager.req_to_blocks.get(request.request_id, [])
            ids.update(b.block_id for b in held[confirmed // manager.block_size :] if not b.is_null)
        return ids


class PolicyDrivenHandler(abc.ABC):
    def __init__(self, engine, eviction: EvictionPolicy | None = None) -> None:
        self.engine = engine
        self.eviction = eviction if eviction is not None else NoEviction()

    @classmethod
    def with_tail_eviction(cls, engine) -> "PolicyDrivenHandler":
        return cls(engine, TailEviction())

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        requests = list(scheduler.running)
        kv = scheduler.kv_cache_manager
        ids: set[int] = set()
        for r in requests:
            ids |= self.eviction.block_ids(kv, r)
        if ids:
            kv.evict_blocks(ids)
        self.release(requests)

    @abc.abstractmethod
    def release(self, requests) -> None: ...


class FaultHandler(PolicyDrivenHandler):
    def release(self, requests) -> None:
        aborted = self.engine.scheduler.finish_requests(
            [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
