# Intended: correct.
# Idioms: closure factory memoised with functools.lru_cache, divmod, early return, abort/resume switch.
# switch: resume
"""Per-block-size slicers built once and reused across faults."""

from __future__ import annotations

import time
from functools import lru_cache

from vllm.v1.request import RequestStatus


@lru_cache(maxsize=8)
def tail_slicer(block_size: int):
    """A function mapping (blocks, confirmed tokens) to the blocks a lost step may have dirtied."""

    def _slice(blocks, confirmed: int):
        full, _partial = divmod(confirmed, block_size)
        return blocks[full:]

    return _slice


class FaultHandler:
    resume = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        if not sched.running:
            self._release(sched)
            return
        kv = sched.kv_cache_manager
        victims: set[int] = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                cut = tail_slicer(mgr.block_size)
                victims.update(b.block_id for b in cut(mgr.req_to_blocks[req.request_id], confirmed))
        kv.evict_blocks(victims)
        self._release(sched)

    def _release(self, sched) -> None:
        if not self.resume:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        ts = time.monotonic()
        for req in list(sched.running):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
