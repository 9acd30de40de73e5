# Intended: correct.
# Idioms: helper class flattening all block tables into a numpy structured array of (req, group, pos, block) cells, fancy indexing a (n_req, n_groups) first-dirty matrix by the cells' coordinates, one boolean mask for the whole batch, np.unique(...).tolist(), abort/resume switch.
# switch: requeue
"""Fault handler built on a flat structured-array view of the block tables."""

from __future__ import annotations

import time

from kvtable import BlockTable
from vllm.v1.request import RequestStatus


class FaultHandler:
    requeue = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        table = BlockTable(sched.kv_cache_manager, sched.running)
        if not table.requests:
            return
        ids = table.unconfirmed_block_ids()
        if ids:
            sched.kv_cache_manager.evict_blocks(set(ids))

        if self.requeue:
            stamp = time.monotonic()
            for req in reversed(table.requests):
                sched.running.remove(req)
                sched._preempt_request(req, stamp)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(
                [r.request_id for r in table.requests], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
