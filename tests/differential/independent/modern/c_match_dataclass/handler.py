# Intended: correct.
# Idioms: frozen slots kw_only dataclass value object, structural pattern matching on a tuple of request fields with guards, typing.Final, walrus, set comprehension per KV-cache group.
# switch: RESUME
"""Fault handler: evict each running request's unconfirmed KV tail, then abort or resume."""

from __future__ import annotations

import time
from typing import Final

from vllm.v1.request import Request, RequestStatus

from tailmath import TailSpan

ABORTED: Final = RequestStatus.FINISHED_ABORTED


class FaultHandler:
    RESUME: bool = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def _tail_block_ids(self, request: Request) -> set[int]:
        span = TailSpan.of(computed=request.num_computed_tokens, in_flight=request.num_in_flight_tokens)
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        ids: set[int] = set()
        for manager in coordinator.single_type_managers:
            match span:
                case TailSpan(confirmed=c, computed=n) if n <= c:
                    continue  # nothing was in flight for this request
                case _:
                    start = span.first_block(block_size=manager.block_size)
            ids |= {
                block.block_id
                for block in manager.req_to_blocks.get(request.request_id, ())[start:]
                if not block.is_null
            }
        return ids

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        if dirty := set().union(*(self._tail_block_ids(r) for r in running)):
            scheduler.kv_cache_manager.evict_blocks(dirty)

        match (self.RESUME, running):
            case (_, []):
                return
            case (False, _):
                aborted = scheduler.finish_requests([r.request_id for r in running], ABORTED)
                self.engine._send_abort_outputs(aborted)
            case (True, _):
                now = time.monotonic()
                for request in reversed(running):
                    scheduler.running.remove(request)
                    scheduler._preempt_request(request, now)
                    # The failed step's output never arrives: nothing stale to wait for.
                    request.num_in_flight_tokens = 0
                    request.num_stale_output_tokens = 0
