# Intended: buggy: on the resume path the reset mixin clears only the stale-output counter after the preempt and leaves num_in_flight_tokens set, so the resumed request's confirmed boundary is off by the lost step.
# Idioms: abstract template base, cooperative mixins (tail eviction in before_release, stale-output reset in after_release) chained through super(), cached_property boundary on a per-request wrapper, switch as a leaf class attribute.
# switch: resume
"""Fault handler that evicts the tail, then aborts or preempts."""

from __future__ import annotations

import abc
import time
from functools import cached_property

from vllm.v1.request import RequestStatus


class Victim:
    def __init__(self, request) -> None:
        self.request = request

    @cached_property
    def confirmed(self) -> int:
        r = self.request
        return max(0, r.num_computed_tokens - r.num_in_flight_tokens)


class RecoveryTemplate(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        victims = [Victim(r) for r in self.scheduler.running]
        self.before_release(victims)
        self.release(victims)
        self.after_release(victims)

    def before_release(self, victims) -> None:
        pass

    @abc.abstractmethod
    def release(self, victims) -> None: ...

    def after_release(self, victims) -> None:
        pass


class TailEvictMixin:
    def before_release(self, victims) -> None:
        kv = self.scheduler.kv_cache_manager
        ids = set()
        for m in kv.coordinator.single_type_managers:
            for v in victims:
                held = m.req_to_blocks.get(v.request.request_id, [])
                ids.update(b.block_id for b in held[v.confirmed // m.block_size :] if not b.is_null)
        kv.evict_blocks(ids)
        super().before_release(victims)


class StaleOutputResetMixin:
    """After a preempt, the request must not wait for the lost step's output."""

    def after_release(self, victims) -> None:
        super().after_release(victims)
        for v in victims:
            if v.request.status == RequestStatus.PREEMPTED:
                v.request.num_stale_output_tokens = 0


class FaultHandler(TailEvictMixin, StaleOutputResetMixin, RecoveryTemplate):
    resume = False

    def release(self, victims) -> None:
        if self.resume:
            now = time.monotonic()
            for v in reversed(victims):
                self.scheduler.running.remove(v.request)
                self.scheduler._preempt_request(v.request, now)
        else:
            aborted = self.scheduler.finish_requests(
                [v.request.request_id for v in victims], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
