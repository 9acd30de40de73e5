# Intended: buggy: the abort subclass overrides before_release to send a log line and never calls super(), so on the abort path the base class's tail eviction is skipped and the dirty blocks stay in the prefix cache.
# Idioms: abstract base implementing tail eviction in a hook, two subclasses (resume extends the hook with super(), abort overrides it), FaultHandler delegating to one by a switch, classmethod constructor, cached_property.
# switch: resume
"""Fault handler delegating to an abort or a resume recovery."""

from __future__ import annotations

import abc
import logging
import time
from functools import cached_property

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class Recovery(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @classmethod
    def for_engine(cls, engine) -> "Recovery":
        return cls(engine)

    @cached_property
    def scheduler(self):
        return self.engine.scheduler

    def run(self) -> None:
        requests = list(self.scheduler.running)
        self.before_release(requests)
        self.release(requests)

    def before_release(self, requests) -> None:
        kv = self.scheduler.kv_cache_manager
        ids = set()
        for m in kv.coordinator.single_type_managers:
            for r in requests:
                first = max(0, r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size
                ids.update(b.block_id for b in m.req_to_blocks.get(r.request_id, [])[first:] if not b.is_null)
        kv.evict_blocks(ids)

    @abc.abstractmethod
    def release(self, requests) -> None: ...


class ResumeRecovery(Recovery):
    def before_release(self, requests) -> None:
        log.info("resuming %d requests after fault", len(requests))
        super().before_release(requests)

    def release(self, requests) -> None:
        now = time.monotonic()
        for r in reversed(requests):
            self.scheduler.running.remove(r)
            self.scheduler._preempt_request(r, now)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0


class AbortRecovery(Recovery):
    def before_release(self, requests) -> None:
        log.warning("aborting %d requests after fault", len(requests))

    def release(self, requests) -> None:
        aborted = self.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)


class FaultHandler:
    resume = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        recovery_cls = ResumeRecovery if self.resume else AbortRecovery
        recovery_cls.for_engine(self.engine).run()
