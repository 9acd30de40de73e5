# Intended: buggy: evicts the unconfirmed tail only in the first KV-cache group; a second group (sliding window) keeps its dirty block cached.
# Idioms: dataclass settings object, guard clause, abort/resume switch as a dataclass field.
# switch: resume
"""Fault recovery configured by a small settings dataclass."""

from __future__ import annotations

import time
from dataclasses import dataclass

from vllm.v1.request import RequestStatus


@dataclass
class FaultSettings:
    resume: bool = False
    log_evictions: bool = False


class FaultHandler:
    def __init__(self, engine, settings: FaultSettings | None = None) -> None:
        self.engine = engine
        self.settings = settings or FaultSettings()

    @property
    def resume(self) -> bool:
        return self.settings.resume

    @resume.setter
    def resume(self, value: bool) -> None:
        self.settings.resume = value

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        attn = kv.coordinator.single_type_managers[0]  # the attention group owns the prefix cache
        dirty: set[int] = set()
        for req in sched.running:
            first = (req.num_computed_tokens - req.num_in_flight_tokens) // attn.block_size
            dirty.update(b.block_id for b in attn.req_to_blocks[req.request_id][first:])
        if dirty:
            if self.settings.log_evictions:
                print(f"evicting {sorted(dirty)}")
            kv.evict_blocks(dirty)

        if not self.resume:
            self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        stamp = time.monotonic()
        for req in sched.running[::-1]:
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
