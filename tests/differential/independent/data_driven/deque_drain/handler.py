# Intended: correct.
# Drains a collections.deque of running requests from the right, skips (continue) requests with no tokens in flight since they have no unconfirmed tail, and evicts each request's tail for every group before preempting or aborting it.
# switch: keep_requests
from __future__ import annotations

import time
from collections import deque
from typing import Any

from vllm.v1.request import RequestStatus


def _tail_ids(managers: Any, req: Any) -> set[int]:
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    out: set[int] = set()
    for mgr in managers:
        blocks = mgr.req_to_blocks.get(req.request_id, [])
        out |= {b.block_id for b in blocks[confirmed // mgr.block_size :] if b.block_hash is not None}
    return out


class FaultHandler:
    keep_requests: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = tuple(kv.coordinator.single_type_managers)
        pending: deque[Any] = deque(scheduler.running)
        ids: list[str] = []
        while pending:
            req = pending.pop()
            ids.append(req.request_id)
            if req.num_in_flight_tokens == 0:
                continue
            tail = _tail_ids(managers, req)
            if tail:
                kv.evict_blocks(tail)
        if not self.keep_requests:
            self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        stamp = time.monotonic()
        wanted = set(ids)
        requests = [r for r in scheduler.running if r.request_id in wanted]
        scheduler.running = [r for r in scheduler.running if r.request_id not in wanted]
        for req in reversed(requests):
            scheduler._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
