# Intended: buggy: the tail records are produced group by group but grouped per request with itertools.groupby into a dict, so each request's second KV-cache group run overwrites its first and the first group's unconfirmed blocks are never evicted when the model has two groups.
# Idioms: a generator of (request id, block id) records walked manager-major, itertools.groupby keyed on the request id into a dict comprehension, per-request eviction with a log line; abort only.
"""Abort-on-fault handler that reports, per request, how many blocks of its
unconfirmed tail it dropped from the prefix cache."""

from __future__ import annotations

import logging
from itertools import groupby
from operator import itemgetter

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


def tail_records(managers, requests):
    for mgr in managers:
        for req in requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for block in mgr.req_to_blocks.get(req.request_id, ())[confirmed // mgr.block_size :]:
                if not block.is_null:
                    yield req.request_id, block.block_id


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        requests = list(sched.running)
        records = tail_records(kv.coordinator.single_type_managers, requests)
        per_request = {
            rid: {block_id for _, block_id in run} for rid, run in groupby(records, key=itemgetter(0))
        }
        for rid, block_ids in per_request.items():
            kv.evict_blocks(block_ids)
            logger.info("request %s: dropped %d unconfirmed blocks", rid, len(block_ids))

        aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
