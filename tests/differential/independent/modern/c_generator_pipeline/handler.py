# Intended: correct.
# Idioms: generator pipeline of frozen slots dataclasses (groups -> block cursors -> filter), dict comprehension of confirmed boundaries, set comprehension drained into one evict call; always aborts.
"""Abort every running request after dropping its unconfirmed KV tail from the prefix cache."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from pipeline import cursors, group_views, unconfirmed


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        boundaries = {
            req.request_id: max(0, req.num_computed_tokens - req.num_in_flight_tokens) for req in sched.running
        }
        stream = unconfirmed(cursors(boundaries, group_views(kv.coordinator)), boundaries)
        kv.evict_blocks({cur.block_id for cur in stream})
        aborted = sched.finish_requests(list(boundaries), RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
