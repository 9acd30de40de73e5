# Intended: correct.
# Idioms: abstract base exposing a contextlib.contextmanager method (quarantine) used by the template method, subclass overriding the quarantine and extending it through super(), a property for the confirmed boundary per request via a nested helper class, preempting in reverse order with the in-flight counter cleared before the preempt.
"""Resume-only handler: requests are quarantined (their unconfirmed tail leaves the
prefix cache) and then preempted back to waiting."""

from __future__ import annotations

import abc
import contextlib
import time

from vllm.v1.request import Request


class QuarantiningHandler(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    @contextlib.contextmanager
    def quarantine(self, requests: list[Request]):
        """While inside, the requests still own their blocks."""
        yield requests

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.scheduler.running)
        with self.quarantine(requests):
            self.prepare(requests)
        self.release(requests)

    def prepare(self, requests: list[Request]) -> None:
        pass

    @abc.abstractmethod
    def release(self, requests: list[Request]) -> None: ...


class TailQuarantine(QuarantiningHandler):
    class _Tail:
        def __init__(self, request: Request) -> None:
            self.request = request

        @property
        def start(self) -> int:
            r = self.request
            return max(0, r.num_computed_tokens - r.num_in_flight_tokens)

        def ids_in(self, manager) -> list[int]:
            held = manager.req_to_blocks.get(self.request.request_id, [])
            return [b.block_id for b in held[self.start // manager.block_size :] if not b.is_null]

    @contextlib.contextmanager
    def quarantine(self, requests: list[Request]):
        kv = self.scheduler.kv_cache_manager
        tails = [self._Tail(r) for r in requests]
        kv.evict_blocks({bid for m in kv.coordinator.single_type_managers for t in tails for bid in t.ids_in(m)})
        with super().quarantine(requests) as inner:
            yield inner


class FaultHandler(TailQuarantine):
    def prepare(self, requests: list[Request]) -> None:
        # The tail was read when the quarantine was entered; the lost step's output
        # never arrives, so nothing is in flight any more (the preempt copies 0 into
        # num_stale_output_tokens).
        for request in requests:
            request.num_in_flight_tokens = 0

    def release(self, requests: list[Request]) -> None:
        now = time.monotonic()
        for request in reversed(requests):
            self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, now)
