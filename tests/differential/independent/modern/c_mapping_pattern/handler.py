# Intended: correct.
# Idioms: TypedDict snapshots matched with mapping patterns and guards, zip(strict=True), walrus; always resumes (counters zeroed before the preempt, after the tail was computed).
"""Resume-on-fault: evict the unconfirmed KV tail, then send every request back to waiting."""

from __future__ import annotations

import time
from typing import Any

from snapshots import RequestSnapshot, snapshot


def dirty_ids(snap: RequestSnapshot) -> set[int]:
    match snap:
        case {"in_flight": 0}:
            return set()
        case {"computed": computed, "in_flight": in_flight, "groups": groups, "block_sizes": sizes}:
            confirmed = max(0, computed - in_flight)
            return {
                block_id
                for blocks, size in zip(groups, sizes, strict=True)
                for block_id, is_null in blocks[confirmed // size :]
                if not is_null
            }
    raise TypeError(f"malformed request snapshot: {snap!r}")


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        snaps = {req.request_id: snapshot(req, managers) for req in sched.running}
        if evict := set().union(*map(dirty_ids, snaps.values())):
            sched.kv_cache_manager.evict_blocks(evict)

        stamp = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            # The lost step will never report back; with nothing in flight the
            # preempt copies zero into num_stale_output_tokens as well.
            req.num_in_flight_tokens = 0
            sched._preempt_request(req, stamp)
