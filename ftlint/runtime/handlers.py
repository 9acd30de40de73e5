"""Reference fault handlers for vLLM's scheduler: what a correct one does.

Used by the demo, the tests and the benchmark, and meant to be read.  The
pattern: in a helper (not inline in ``on_fault``), before aborting or
preempting, evict only each running request's unconfirmed tail (0-1 full
blocks per request and KV-cache group) from the prefix cache; keep the clean,
confirmed prefix cached; on resume, reset the in-flight counters.

Imports nothing from vLLM at module level.
"""

from __future__ import annotations

import time
from typing import Any


def unconfirmed_tail_block_ids(scheduler: Any, requests: Any = None) -> set[int]:
    """Block ids holding scheduled-but-unconfirmed tokens that are cached.

    ``confirmed = num_computed_tokens - num_in_flight_tokens``; blocks with
    index ``>= confirmed // block_size`` (per KV-cache group) can hold KV that
    was never computed.  Only hashed, non-null blocks matter for the cache.
    """
    kvm = scheduler.kv_cache_manager
    ids: set[int] = set()
    for req in list(scheduler.running if requests is None else requests):
        confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
        for mgr in kvm.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, ())
            for blk in blocks[confirmed // mgr.block_size :]:
                if not blk.is_null and blk.block_hash is not None:
                    ids.add(blk.block_id)
    return ids


def evict_unconfirmed_tail(scheduler: Any, requests: Any = None) -> set[int]:
    """Evict the unconfirmed tail of every running request from the prefix
    cache; must run before the blocks are freed (abort or preempt)."""
    ids = unconfirmed_tail_block_ids(scheduler, requests)
    if ids:
        scheduler.kv_cache_manager.evict_blocks(ids)
    return ids


def abort_all_evicting_tail(scheduler: Any, send_abort: Any = None) -> list[Any]:
    """Upstream's abort-all, fixed: tail eviction first, then abort."""
    from vllm.v1.request import RequestStatus

    evict_unconfirmed_tail(scheduler)
    aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    if send_abort is not None:
        send_abort(aborted)
    return list(aborted)


def resume_all_evicting_tail(scheduler: Any) -> list[Any]:
    """The fork's resume, fixed: evict the tail, preempt every running request
    back to waiting, and reset the counters of the lost step so the request
    is scheduled again and its next frame is not dropped."""
    evict_unconfirmed_tail(scheduler)
    timestamp = time.monotonic()
    preempted = []
    while scheduler.running:
        request = scheduler.running.pop()
        scheduler._preempt_request(request, timestamp)
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
        request.drop_stale_output = False
        preempted.append(request)
    return preempted


class CorrectSentinelHandler:
    """An ``on_fault`` replacement for ``EngineCoreSentinel``: evicts the
    unconfirmed tail in a helper, then aborts as upstream does."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        abort_all_evicting_tail(self.engine.scheduler, self.engine._send_abort_outputs)
