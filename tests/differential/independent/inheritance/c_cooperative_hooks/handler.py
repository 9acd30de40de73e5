# Intended: correct.
# Idioms: deep cooperative multiple inheritance (logging, zeroing, eviction and counter-reset mixins all extending before_release / after_release through super()), abstract preempting base with template method, a cached_property for the confirmed boundary per request via a small wrapper.
"""Resume-only fault handler: every running request goes back to the waiting
queue and re-hits its clean prefix after recovery."""

from __future__ import annotations

import abc
import logging
import time
from functools import cached_property

from vllm.v1.request import Request

log = logging.getLogger("fault_recovery")


class Faulted:
    """A running request as the fault found it."""

    def __init__(self, request: Request) -> None:
        self.request = request

    @cached_property
    def boundary(self) -> int:
        r = self.request
        return max(0, r.num_computed_tokens - r.num_in_flight_tokens)

    @property
    def request_id(self) -> str:
        return self.request.request_id


class PreemptingHandler(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        faulted = [Faulted(r) for r in self.scheduler.running]
        self.before_release(faulted)
        self.release(faulted)
        self.after_release(faulted)

    def before_release(self, faulted: list[Faulted]) -> None:
        pass

    def release(self, faulted: list[Faulted]) -> None:
        now = time.monotonic()
        while self.scheduler.running:
            self.scheduler._preempt_request(self.scheduler.running.pop(), now)

    def after_release(self, faulted: list[Faulted]) -> None:
        pass


class LoggingMixin:
    def before_release(self, faulted):
        log.info("fault: %d running requests go back to waiting", len(faulted))
        super().before_release(faulted)


class ZeroingMixin:
    """Re-record the tail for KV zeroing when the model needs it (Mamba, mixed
    precision).  Must run while the request still owns its blocks."""

    def before_release(self, faulted):
        super().before_release(faulted)
        kv = self.scheduler.kv_cache_manager
        if not getattr(self.scheduler, "needs_kv_cache_zeroing", False):
            return
        sizes = {m.block_size for m in kv.coordinator.single_type_managers}
        if len(sizes) != 1:
            return
        (size,) = sizes
        for f in faulted:
            kv.record_blocks_for_zeroing(f.request_id, f.boundary // size * size)


class EvictTailMixin:
    def before_release(self, faulted):
        super().before_release(faulted)
        kv = self.scheduler.kv_cache_manager
        ids: set[int] = set()
        for manager in kv.coordinator.single_type_managers:
            for f in faulted:
                blocks = manager.req_to_blocks.get(f.request_id, ())
                ids.update(b.block_id for b in blocks[f.boundary // manager.block_size :] if not b.is_null)
        kv.evict_blocks(ids)


class ClearLostStepMixin:
    def after_release(self, faulted):
        for f in faulted:
            f.request.num_in_flight_tokens = 0
            f.request.num_stale_output_tokens = 0
        super().after_release(faulted)


class FaultHandler(LoggingMixin, ZeroingMixin, EvictTailMixin, ClearLostStepMixin, PreemptingHandler):
    """Resume every running request after a fault."""
