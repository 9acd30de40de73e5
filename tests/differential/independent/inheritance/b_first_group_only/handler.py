# Intended: buggy: the tail is looked up only in the first KV-cache group's manager, so with a hybrid model (full plus sliding-window attention) the dirty blocks of the second group keep their hashes in the prefix cache.
# Idioms: template-method base class, eviction mixin with a property returning "the" KV-cache manager, counter-reset mixin, cooperative super() chain, switch as a leaf class attribute.
# switch: resume
"""Mixin-based fault handler (abort or resume)."""

from __future__ import annotations

import abc
import time

from vllm.v1.request import RequestStatus


class HandlerSkeleton(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine
        self.scheduler = engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.scheduler.running)
        self.before_release(requests)
        self.release(requests)
        self.after_release(requests)

    def before_release(self, requests) -> None:
        pass

    @abc.abstractmethod
    def release(self, requests) -> None: ...

    def after_release(self, requests) -> None:
        pass


class EvictDirtyTailMixin:
    @property
    def block_manager(self):
        return self.scheduler.kv_cache_manager.coordinator.single_type_managers[0]

    @property
    def block_size(self) -> int:
        return self.block_manager.block_size

    def dirty_ids(self, request) -> list[int]:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        blocks = self.block_manager.req_to_blocks.get(request.request_id, [])
        return [b.block_id for b in blocks[confirmed // self.block_size :] if not b.is_null]

    def before_release(self, requests) -> None:
        ids = {bid for r in requests for bid in self.dirty_ids(r)}
        self.scheduler.kv_cache_manager.evict_blocks(ids)
        super().before_release(requests)


class ResetLostStepMixin:
    def after_release(self, requests) -> None:
        super().after_release(requests)
        for r in requests:
            if r.status == RequestStatus.PREEMPTED:
                r.num_in_flight_tokens = 0
                r.num_stale_output_tokens = 0


class FaultHandler(EvictDirtyTailMixin, ResetLostStepMixin, HandlerSkeleton):
    resume = False

    def release(self, requests) -> None:
        if not self.resume:
            aborted = self.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        now = time.monotonic()
        for r in reversed(requests):
            self.scheduler.running.remove(r)
            self.scheduler._preempt_request(r, now)
