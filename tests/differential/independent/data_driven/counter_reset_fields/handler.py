# Intended: correct.
# Typing.Final field-name constants drive getattr for the confirmed boundary and a setattr loop that resets the in-flight counters after each preempt; dirty ids gathered in a defaultdict keyed by group index and chained together.
# switch: resume_on_fault
from __future__ import annotations

import time
from collections import defaultdict
from itertools import chain
from typing import Any, Final

from vllm.v1.request import RequestStatus

COMPUTED: Final = "num_computed_tokens"
IN_FLIGHT: Final = "num_in_flight_tokens"
STALE: Final = "num_stale_output_tokens"
RESET_AFTER_PREEMPT: Final[tuple[str, ...]] = (IN_FLIGHT, STALE)


def _confirmed(running: list[Any]) -> dict[str, int]:
    return {req.request_id: getattr(req, COMPUTED) - getattr(req, IN_FLIGHT) for req in running}


def evict_unconfirmed(scheduler: Any) -> dict[str, int]:
    confirmed = _confirmed(scheduler.running)
    if not confirmed:
        return confirmed
    kv = scheduler.kv_cache_manager
    by_group: defaultdict[int, set[int]] = defaultdict(set)
    for group, mgr in enumerate(kv.coordinator.single_type_managers):
        for rid, upto in confirmed.items():
            blocks = mgr.req_to_blocks.get(rid, [])
            by_group[group].update(b.block_id for b in blocks[upto // mgr.block_size :] if b.block_hash is not None)
    dirty = set(chain.from_iterable(by_group.values()))
    if dirty:
        kv.evict_blocks(dirty)
    return confirmed


class FaultHandler:
    resume_on_fault: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        evict_unconfirmed(scheduler)
        if not self.resume_on_fault:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        victims, scheduler.running = scheduler.running, []
        now = time.monotonic()
        for req in reversed(victims):
            scheduler._preempt_request(req, now)
            for field in RESET_AFTER_PREEMPT:
                setattr(req, field, 0)
