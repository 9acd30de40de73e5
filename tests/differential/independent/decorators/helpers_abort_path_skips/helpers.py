"""Module-level helpers shared by the engine's fault handlers."""

import time

from vllm.v1.request import RequestStatus


def unconfirmed_tail(scheduler, request):
    """Block ids past the request's confirmed boundary, every KV-cache group."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    ids = set()
    for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
        for blk in mgr.req_to_blocks.get(request.request_id, ())[confirmed // mgr.block_size:]:
            if not blk.is_null:
                ids.add(blk.block_id)
    return ids


def requeue(scheduler, requests):
    """Evict each request's unconfirmed tail, preempt it back to waiting and clear
    the counters of the lost step."""
    ts = time.monotonic()
    for req in reversed(requests):
        scheduler.kv_cache_manager.evict_blocks(unconfirmed_tail(scheduler, req))
        scheduler.running.remove(req)
        scheduler._preempt_request(req, ts)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0


def abort_all(scheduler):
    """Abort every request; returns the aborted requests."""
    return scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
