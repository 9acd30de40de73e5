# Intended: buggy: eviction of the unconfirmed tail sits behind an option that defaults to off, so with the default configuration the handler aborts without evicting and the dirty blocks stay in the prefix cache.
# Idioms: frozen slots kw_only dataclass config with TypedDict/Unpack overrides, typing.Final default instance, keyword-only constructor parameter, match on the config instance with class patterns.
"""Abort on fault; optionally evict the unconfirmed KV tail first."""

from __future__ import annotations

import time
from typing import Any

from vllm.v1.request import RequestStatus

from ftconfig import DEFAULT, FTConfig


class FaultHandler:
    def __init__(self, engine: Any, *, config: FTConfig = DEFAULT) -> None:
        self.engine = engine
        self.config = config

    def _evict(self, requests: list[Any]) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        ids = {
            b.block_id
            for r in requests
            for m in kv.coordinator.single_type_managers
            for b in m.req_to_blocks.get(r.request_id, [])[
                max(0, r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size :
            ]
            if not b.is_null
        }
        kv.evict_blocks(ids)

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        requests = list(sched.running)
        match self.config:
            case FTConfig(evict_dirty_tail=True):
                self._evict(requests)
            case FTConfig():
                pass
        match self.config:
            case FTConfig(resume=True):
                now = time.monotonic()
                for r in reversed(requests):
                    sched.running.remove(r)
                    sched._preempt_request(r, now)
                    r.num_in_flight_tokens = r.num_stale_output_tokens = 0
            case _:
                aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
                self.engine._send_abort_outputs(aborted)
