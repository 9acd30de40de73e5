# Intended: buggy: the first block to evict is computed by rounding the confirmed boundary up, so the partly confirmed block that holds the boundary (the one a failed decode step just filled) keeps its hash in the prefix cache.
# Idioms: typed NamedTuple actions collected into a plan, a validation pass that sorts and
# Idioms: deduplicates block ids, an executor with a dispatch dict; abort/resume switch.
# switch: resume
from __future__ import annotations

import time
from typing import NamedTuple

from vllm.v1.request import RequestStatus


class Evict(NamedTuple):
    group: int
    block_ids: tuple[int, ...]


class Release(NamedTuple):
    request_id: str
    requeue: bool


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def plan(self, sched):
        actions = []
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                # Blocks that lie entirely at or after the confirmed boundary.
                start = _cdiv(confirmed, mgr.block_size)
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                ids = tuple(b.block_id for b in blocks[start:] if not b.is_null)
                actions.append(Evict(mgr.kv_cache_group_id, ids))
        for req in reversed(sched.running):
            actions.append(Release(req.request_id, self.resume))
        return actions

    @staticmethod
    def validate(actions):
        out, seen = [], set()
        for a in actions:
            if isinstance(a, Evict):
                ids = tuple(sorted(set(a.block_ids) - seen))
                seen.update(ids)
                if ids:
                    out.append(a._replace(block_ids=ids))
            else:
                out.append(a)
        return out

    def execute(self, sched, actions):
        now = time.monotonic()
        to_abort = []

        def do_evict(a: Evict):
            sched.kv_cache_manager.evict_blocks(set(a.block_ids))

        def do_release(a: Release):
            req = sched.requests[a.request_id]
            if not a.requeue:
                to_abort.append(a.request_id)
                return
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

        dispatch = {Evict: do_evict, Release: do_release}
        for a in actions:
            dispatch[type(a)](a)
        if to_abort:
            self.engine._send_abort_outputs(sched.finish_requests(to_abort, RequestStatus.FINISHED_ABORTED))

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self.execute(sched, self.validate(self.plan(sched)))
