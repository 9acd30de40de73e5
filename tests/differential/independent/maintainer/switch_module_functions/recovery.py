"""Helpers to recover the scheduler from a failed engine step."""

from __future__ import annotations

import time
from typing import Any

from vllm.logger import init_logger
from vllm.v1.core.kv_cache_manager import KVCacheManager
from vllm.v1.request import Request, RequestStatus

logger = init_logger(__name__)


def unconfirmed_block_ids(
    kv_cache_manager: KVCacheManager, request: Request
) -> list[int]:
    """Block IDs (all KV cache groups) past the request's confirmed tokens."""
    num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    block_ids: list[int] = []
    for manager in kv_cache_manager.coordinator.single_type_managers:
        blocks = manager.req_to_blocks[request.request_id]
        block_ids.extend(b.block_id for b in blocks[num_confirmed // manager.block_size :])
    return block_ids


def evict_unconfirmed_blocks(scheduler: Any) -> int:
    kv_cache_manager = scheduler.kv_cache_manager
    to_evict: set[int] = set()
    for request in scheduler.running:
        to_evict.update(unconfirmed_block_ids(kv_cache_manager, request))
    if to_evict:
        kv_cache_manager.evict_blocks(to_evict)
    return len(to_evict)


def preempt_running_for_resume(scheduler: Any) -> list[Request]:
    timestamp = time.monotonic()
    preempted: list[Request] = []
    while scheduler.running:
        request = scheduler.running.pop()
        scheduler._preempt_request(request, timestamp)
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
        preempted.append(request)
    return preempted


def abort_all(engine: Any) -> list[Request]:
    aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    engine._send_abort_outputs(aborted)
    return aborted
