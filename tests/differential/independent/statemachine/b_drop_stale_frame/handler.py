# Intended: buggy: on the resume path it preempts with drop_stale_output=True so the lost step's tokens are marked to be dropped, but that step's output frame never arrives, so the first good frame after the resume is the one that gets dropped.
# Idioms: Enum whose values name the handler methods (state -> method by value), an explicit allowed-transitions map checked on every move, a context dataclass, a step counter, an abort/resume switch read in a guard.
# switch: resume
"""Recovery machine with validated transitions."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum

from vllm.v1.request import RequestStatus


class Mode(Enum):
    CAPTURE = "on_capture"
    INVALIDATE = "on_invalidate"
    ABORT = "on_abort"
    RESUME = "on_resume"
    COMPLETE = "on_complete"


ALLOWED = {
    Mode.CAPTURE: {Mode.INVALIDATE, Mode.COMPLETE},
    Mode.INVALIDATE: {Mode.ABORT, Mode.RESUME},
    Mode.ABORT: {Mode.COMPLETE},
    Mode.RESUME: {Mode.COMPLETE},
    Mode.COMPLETE: set(),
}


@dataclass
class Carry:
    requests: list = field(default_factory=list)
    evict: set[int] = field(default_factory=set)
    aborted: list = field(default_factory=list)


class IllegalTransition(RuntimeError):
    pass


class FaultHandler:
    resume = False
    max_steps = 10

    def __init__(self, engine):
        self.engine = engine
        self.mode = Mode.COMPLETE

    def _move(self, target: Mode) -> None:
        if target not in ALLOWED[self.mode]:
            raise IllegalTransition(f"{self.mode.name} -> {target.name}")
        self.mode = target

    def on_fault(self, exc):
        carry = Carry()
        self.mode = Mode.CAPTURE
        for _ in range(self.max_steps):
            if self.mode is Mode.COMPLETE:
                return carry
            nxt = getattr(self, self.mode.value)(carry)
            self._move(nxt)
        raise RuntimeError(f"recovery exceeded {self.max_steps} steps") from exc

    def on_capture(self, carry: Carry) -> Mode:
        carry.requests = list(self.engine.scheduler.running)
        return Mode.INVALIDATE if carry.requests else Mode.COMPLETE

    def on_invalidate(self, carry: Carry) -> Mode:
        kv = self.engine.scheduler.kv_cache_manager
        for req in carry.requests:
            ok = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                for blk in mgr.req_to_blocks.get(req.request_id, [])[ok // mgr.block_size:]:
                    if not blk.is_null:
                        carry.evict.add(blk.block_id)
        if carry.evict:
            kv.evict_blocks(carry.evict)
        return Mode.RESUME if self.resume else Mode.ABORT

    def on_abort(self, carry: Carry) -> Mode:
        carry.aborted = self.engine.scheduler.finish_requests(
            [r.request_id for r in carry.requests], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(carry.aborted)
        return Mode.COMPLETE

    def on_resume(self, carry: Carry) -> Mode:
        sched = self.engine.scheduler
        ts = time.monotonic()
        for req in reversed(carry.requests):
            sched.running.remove(req)
            # Discard whatever the failed step produced instead of waiting for it.
            sched._preempt_request(req, ts, drop_stale_output=True)
            req.num_in_flight_tokens = 0
        return Mode.COMPLETE

    def on_complete(self, carry: Carry) -> Mode:  # pragma: no cover - final
        return Mode.COMPLETE
