"""Drop prefix-cache entries that a failed step may have left pointing at garbage KV."""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


def tail_ids_for(scheduler, request):
    settled = request.num_computed_tokens - request.num_in_flight_tokens
    coordinator = scheduler.kv_cache_manager.coordinator
    ids = []
    for gid, manager in enumerate(coordinator.single_type_managers):
        blocks = manager.req_to_blocks.get(request.request_id)
        if blocks is None:
            logger.debug("request %s has no blocks in group %s", request.request_id, gid)
            continue
        ids.extend(b.block_id for b in blocks[settled // manager.block_size :] if not b.is_null)
    return ids


def scrub_running(scheduler) -> int:
    ids: set = set()
    for request in scheduler.running:
        ids.update(tail_ids_for(scheduler, request))
    try:
        scheduler.kv_cache_manager.evict_blocks(ids)
    except Exception:
        logger.exception("evict_blocks(%s ids) failed", len(ids))
        raise
    return len(ids)
