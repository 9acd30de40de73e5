# Intended: buggy: it rounds the confirmed boundary up to the next block boundary, so when the boundary falls inside a block that block (which holds the first unconfirmed tokens) is skipped and stays in the prefix cache.
# Idioms: generator stages over (request, manager) pairs, math.ceil for the first block index, itertools.islice to cut the block list lazily, a set sink before the abort or requeue; abort/resume switch.
# switch: RESUME
"""Fault handler: evict the blocks the failed step wrote, then abort or requeue.

Blocks are walked lazily with ``islice`` from the first block that lies
entirely past the confirmed prefix.
"""

from __future__ import annotations

import math
import time
from itertools import islice

from vllm.v1.request import RequestStatus


def first_unconfirmed_block(request, block_size: int) -> int:
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    # The first block that starts at or after the confirmed point.
    return math.ceil(max(confirmed, 0) / block_size)


def unconfirmed_blocks(requests, managers):
    for req in requests:
        for mgr in managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            start = first_unconfirmed_block(req, mgr.block_size)
            yield from (b for b in islice(blocks, start, None) if not b.is_null)


class FaultHandler:
    RESUME = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)
        block_ids = {b.block_id for b in unconfirmed_blocks(running, kv.coordinator.single_type_managers)}
        if block_ids:
            kv.evict_blocks(block_ids)

        if self.RESUME:
            ts = time.monotonic()
            for req in reversed(running):
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
