"""FaultPolicy and its builder."""

from __future__ import annotations

import time
from enum import Enum

from vllm.v1.request import RequestStatus


class RecoveryMode(str, Enum):
    ABORT = "abort"
    RESUME = "resume"


class FaultPolicy:
    def __init__(self, engine, mode: RecoveryMode, evict_tail: bool) -> None:
        self._engine = engine
        self._mode = mode
        self._evict_tail = evict_tail

    @property
    def mode(self) -> RecoveryMode:
        return self._mode

    @property
    def scheduler(self):
        return self._engine.scheduler

    def apply(self, exc: Exception) -> None:
        victims = list(self.scheduler.running)
        if self._evict_tail:
            self._evict(victims)
        if self.mode is RecoveryMode.ABORT:
            self._abort(victims)
        else:
            self._requeue(victims)

    def _evict(self, victims) -> None:
        kv = self.scheduler.kv_cache_manager
        block_sizes = [m.block_size for m in kv.coordinator.single_type_managers]
        ids: set[int] = set()
        for req in victims:
            first_unconfirmed = req.num_computed_tokens - req.num_in_flight_tokens
            groups = kv.get_blocks(req.request_id).blocks
            for size, blocks in zip(block_sizes, groups):
                for pos in range(first_unconfirmed // size, len(blocks)):
                    if not blocks[pos].is_null:
                        ids.add(blocks[pos].block_id)
        kv.evict_blocks(ids)

    def _abort(self, victims) -> None:
        done = self.scheduler.finish_requests([v.request_id for v in victims], RequestStatus.FINISHED_ABORTED)
        self._engine._send_abort_outputs(done)

    def _requeue(self, victims) -> None:
        ts = time.monotonic()
        for req in reversed(victims):
            self.scheduler.running.remove(req)
            self.scheduler._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0


class FaultPolicyBuilder:
    def __init__(self) -> None:
        self._engine = None
        self._mode = RecoveryMode.ABORT
        self._evict_tail = True

    def for_engine(self, engine) -> "FaultPolicyBuilder":
        self._engine = engine
        return self

    def with_mode(self, mode: RecoveryMode) -> "FaultPolicyBuilder":
        self._mode = mode
        return self

    def evicting_unconfirmed_tail(self, enabled: bool = True) -> "FaultPolicyBuilder":
        self._evict_tail = enabled
        return self

    def build(self) -> FaultPolicy:
        if self._engine is None:
            raise ValueError("FaultPolicyBuilder: for_engine() was not called")
        return FaultPolicy(self._engine, self._mode, self._evict_tail)
