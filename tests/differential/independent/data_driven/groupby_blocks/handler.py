# Intended: correct.
# Flattens every (group, request, position, block) into sorted rows, walks them with itertools.groupby per (group, request), and keeps the rows at or past that request's confirmed block; block sizes come from zip(strict=True) over the groups.
# switch: resume_requests
from __future__ import annotations

import time
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

from vllm.v1.request import RequestStatus


class Row(NamedTuple):
    group: int
    request_id: str
    position: int
    block_id: int


def _rows(managers: Any, request_ids: list[str]) -> list[Row]:
    return sorted(
        Row(group, rid, pos, block.block_id)
        for group, mgr in enumerate(managers)
        for rid in request_ids
        for pos, block in enumerate(mgr.req_to_blocks.get(rid, ()))
        if not block.is_null
    )


def tail_block_ids(scheduler: Any) -> set[int]:
    running = list(scheduler.running)
    if not running:
        return set()
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    sizes = [mgr.block_size for mgr in managers]
    confirmed = {r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in running}
    first_block = {
        (group, rid): upto // size
        for (group, size), _mgr in zip(enumerate(sizes), managers, strict=True)
        for rid, upto in confirmed.items()
    }
    dirty: set[int] = set()
    for key, rows in groupby(_rows(managers, list(confirmed)), key=itemgetter(0, 1)):
        start = first_block[key]
        dirty.update(row.block_id for row in rows if row.position >= start)
    return dirty


class FaultHandler:
    resume_requests: bool = True

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        if dirty := tail_block_ids(scheduler):
            scheduler.kv_cache_manager.evict_blocks(dirty)
        if not self.resume_requests:
            self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        now = time.monotonic()
        for req in reversed(scheduler.running[:]):
            scheduler.running.remove(req)
            scheduler._preempt_request(req, now)
            req.num_stale_output_tokens = req.num_in_flight_tokens = 0
