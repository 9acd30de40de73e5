from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum

from vllm.v1.request import RequestStatus


class StrategyKind(Enum):
    ABORT = "abort"
    RESUME = "resume"


@dataclass
class RequeueOptions:
    # Outputs of the interrupted step must not be appended after the replay.
    discard_interrupted_output: bool = True


class FaultStrategy(ABC):
    def __init__(self, options: RequeueOptions) -> None:
        self.options = options

    def handle(self, engine) -> None:
        scheduler = engine.scheduler
        requests = list(scheduler.running)
        self._evict_unconfirmed(scheduler, requests)
        self.release(engine, requests)

    @staticmethod
    def _evict_unconfirmed(scheduler, requests) -> None:
        kv = scheduler.kv_cache_manager
        victims: set[int] = set()
        for r in requests:
            ok = r.num_computed_tokens - r.num_in_flight_tokens
            for m in kv.coordinator.single_type_managers:
                victims.update(b.block_id for b in m.req_to_blocks.get(r.request_id, [])[ok // m.block_size :] if not b.is_null)
        kv.evict_blocks(victims)

    @abstractmethod
    def release(self, engine, requests) -> None: ...


class AbortStrategy(FaultStrategy):
    def release(self, engine, requests) -> None:
        aborted = engine.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)


class ResumeStrategy(FaultStrategy):
    def release(self, engine, requests) -> None:
        scheduler = engine.scheduler
        now = time.monotonic()
        for r in reversed(requests):
            scheduler.running.remove(r)
            scheduler._preempt_request(r, now, drop_stale_output=self.options.discard_interrupted_output)
            r.num_in_flight_tokens = 0


STRATEGIES: dict[StrategyKind, type[FaultStrategy]] = {
    StrategyKind.ABORT: AbortStrategy,
    StrategyKind.RESUME: ResumeStrategy,
}
