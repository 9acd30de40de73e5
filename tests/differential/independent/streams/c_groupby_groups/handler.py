# Intended: correct.
# Idioms: a generator of (group, block id) records, sorted and grouped per KV-cache group with itertools.groupby, one evict_blocks call per group; operator.attrgetter/itemgetter keys; abort/resume switch.
# switch: requeue
"""Per-KV-cache-group scrubbing of the unconfirmed tail, then abort or requeue.

The record stream is sorted by group before ``groupby`` so each group comes
out as one run; every run is evicted in one call, which keeps the block pool's
removal events grouped per KV-cache group.
"""

from __future__ import annotations

import time
from itertools import groupby
from operator import attrgetter, itemgetter
from typing import NamedTuple

from vllm.v1.request import RequestStatus


class TailRecord(NamedTuple):
    group: int
    request_id: str
    block_id: int


def tail_records(requests, managers):
    for req in requests:
        boundary = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in managers:
            skip = boundary // mgr.block_size
            for block in mgr.req_to_blocks.get(req.request_id, ())[skip:]:
                if block.is_null:
                    continue
                yield TailRecord(mgr.kv_cache_group_id, req.request_id, block.block_id)


class FaultHandler:
    requeue = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self.last_evicted: dict[int, int] = {}

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        requests = sorted(sched.running, key=attrgetter("request_id"))
        records = sorted(tail_records(requests, kv.coordinator.single_type_managers), key=itemgetter(0))

        self.last_evicted = {}
        for group, run in groupby(records, key=itemgetter(0)):
            ids = {rec.block_id for rec in run}
            kv.evict_blocks(ids)
            self.last_evicted[group] = len(ids)

        if self.requeue:
            ts = time.monotonic()
            # Preempt from the back so the queue keeps its order on resume.
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            done = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(done)
