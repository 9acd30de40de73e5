# Intended: correct.
# Idioms: eviction wrapped in a retry loop with a bounded attempt counter (for/else reports exhaustion); TransientEvictError for retryable failures; try/except/else around each preemption; per-request errors logged and swallowed.
"""Resume-in-place fault handler: every running request goes back to the
waiting queue with its clean prefix still cached, so it re-hits its own KV
after recovery and only recomputes the tokens of the failed step."""

import logging
import time

logger = logging.getLogger(__name__)

MAX_EVICT_ATTEMPTS = 3


class TransientEvictError(RuntimeError):
    """An eviction attempt failed in a way that is worth retrying."""


def unconfirmed_block_ids(kv_cache_manager, request):
    """{group index: block ids} of the blocks at or after the confirmed boundary."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    per_group = {}
    for gid, mgr in enumerate(kv_cache_manager.coordinator.single_type_managers):
        blocks = mgr.req_to_blocks.get(request.request_id) or []
        ids = [b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null]
        if ids:
            per_group[gid] = ids
    return per_group


def evict_once(kv_cache_manager, block_ids):
    try:
        kv_cache_manager.evict_blocks(set(block_ids))
    except AssertionError as err:  # BlockPool sanity checks on ids
        raise TransientEvictError(str(err)) from err


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        timestamp = time.monotonic()
        # Preempt in reverse so the waiting queue keeps the running order.
        while scheduler.running:
            request = scheduler.running[-1]
            for group, ids in unconfirmed_block_ids(kv, request).items():
                for attempt in range(1, MAX_EVICT_ATTEMPTS + 1):
                    try:
                        evict_once(kv, ids)
                    except TransientEvictError as err:
                        logger.warning(
                            "evict attempt %d/%d for %s group %d failed: %s",
                            attempt, MAX_EVICT_ATTEMPTS, request.request_id, group, err,
                        )
                    else:
                        break
                else:
                    logger.error("giving up evicting tail of %s in group %d", request.request_id, group)
            scheduler.running.pop()
            try:
                scheduler._preempt_request(request, timestamp)
            except AssertionError:
                logger.exception("request %s was not running; left as is", request.request_id)
            else:
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
