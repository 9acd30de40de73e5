# Intended: buggy: it evicts every hashed block each running request holds, from block 0, not only the unconfirmed tail, so the clean confirmed prefix is dropped from the prefix cache and a resumed request recomputes it.
# Idioms: generator pipeline with chain.from_iterable over a generator of per-group block lists, filter with a predicate, map to ids, a sink that evicts then aborts or preempts; abort/resume switch.
# switch: resume_mode
"""Fault handler: a faulted step may have written any block of a running
request, so drop all of their cached blocks before aborting or requeueing."""

from __future__ import annotations

import time
from itertools import chain
from operator import attrgetter

from vllm.v1.request import RequestStatus


def _cached(block) -> bool:
    return block.block_hash is not None and not block.is_null


class FaultHandler:
    resume_mode = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)
        per_group = (
            mgr.req_to_blocks.get(req.request_id, ())
            for req in running
            for mgr in kv.coordinator.single_type_managers
        )
        ids = set(map(attrgetter("block_id"), filter(_cached, chain.from_iterable(per_group))))
        kv.evict_blocks(ids)

        if self.resume_mode:
            ts = time.monotonic()
            sched.running = []
            for req in reversed(running):
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            )
