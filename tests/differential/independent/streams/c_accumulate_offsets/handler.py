# Intended: correct.
# Idioms: itertools.accumulate over repeat(block_size) gives each block's end offset, dropwhile skips the blocks that end at or before the confirmed boundary, zip pairs blocks with offsets lazily; a generator method per request; abort/resume switch.
# switch: resume_requests
"""Fault handler that measures block extents with running sums.

A block ``i`` of size ``bs`` covers tokens ``[i*bs, (i+1)*bs)``.  The running
sum of the block sizes is each block's end; a block is clean only when it ends
at or before the confirmed boundary, so ``dropwhile`` on the end offset leaves
exactly the block holding the boundary and everything after it.
"""

from __future__ import annotations

import time
from itertools import accumulate, dropwhile, repeat

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_requests = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def _unconfirmed(self, request, managers):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for mgr in managers:
            blocks = mgr.req_to_blocks.get(request.request_id, [])
            ends = accumulate(repeat(mgr.block_size, len(blocks)))
            for block, _end in dropwhile(lambda pair: pair[1] <= confirmed, zip(blocks, ends)):
                if not block.is_null:
                    yield block.block_id

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        requests = list(sched.running)

        to_evict = {bid for req in requests for bid in self._unconfirmed(req, managers)}
        kv.evict_blocks(to_evict)

        if not self.resume_requests:
            aborted = sched.finish_requests((r.request_id for r in requests), RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return

        now = time.monotonic()
        sched.running = []
        for req in reversed(requests):
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
