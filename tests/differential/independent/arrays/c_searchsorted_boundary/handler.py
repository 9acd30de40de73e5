# Intended: correct.
# Idioms: helper module with block-start offsets and np.searchsorted(side="right") to locate the block holding the confirmed boundary token, slicing numpy id arrays from that block on, set union across KV-cache groups, module-level helper functions, abort/resume switch.
# switch: resume
"""Fault handler: locate the block that holds the first unconfirmed token with a
sorted search over block start offsets, evict it and everything after it in
every KV-cache group, then abort or requeue."""

from __future__ import annotations

import time

import numpy as np

from blockmath import block_of_token
from vllm.v1.request import RequestStatus


def unconfirmed_tail_ids(kv_manager, request) -> set[int]:
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    out: set[int] = set()
    for mgr in kv_manager.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks.get(request.request_id, [])
        ids = np.array([b.block_id for b in blocks], dtype=np.int64)
        first = block_of_token(confirmed, ids.size, mgr.block_size)
        out.update(ids[first:].tolist())
    return out


def requeue(scheduler, requests) -> None:
    now = time.monotonic()
    for req in reversed(requests):
        scheduler.running.remove(req)
        scheduler._preempt_request(req, now)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        requests = list(scheduler.running)
        kv = scheduler.kv_cache_manager
        doomed: set[int] = set()
        for req in requests:
            doomed |= unconfirmed_tail_ids(kv, req)
        if doomed:
            kv.evict_blocks(doomed)
        if self.resume:
            requeue(scheduler, requests)
        elif requests:
            aborted = scheduler.finish_requests(
                [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
