# Intended: buggy: the first dirty block index is computed by rounding the confirmed token count up instead of down, so when the confirmed boundary falls inside a block (a failed decode step that filled a block) the block holding the boundary is not evicted.
# Idioms: a retry loop with a bounded attempt counter and a RetryExhausted exception; try/except/else around each attempt; per-request errors logged and swallowed; resume only.
import logging
import time

logger = logging.getLogger(__name__)


class RetryExhausted(Exception):
    pass


def with_retries(fn, *args, attempts=3):
    last = None
    for n in range(attempts):
        try:
            result = fn(*args)
        except (AssertionError, KeyError) as err:
            last = err
            logger.debug("attempt %d of %s failed: %s", n + 1, fn.__name__, err)
        else:
            return result
    raise RetryExhausted(fn.__name__) from last


def evict_unconfirmed(kv, request):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    ids = set()
    for mgr in kv.coordinator.single_type_managers:
        first_dirty = -(-confirmed // mgr.block_size)  # ceil: blocks fully confirmed
        for blk in mgr.req_to_blocks.get(request.request_id, [])[first_dirty:]:
            if not blk.is_null:
                ids.add(blk.block_id)
    kv.evict_blocks(ids)
    return len(ids)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        now = time.monotonic()
        while sched.running:
            request = sched.running.pop()
            try:
                with_retries(evict_unconfirmed, sched.kv_cache_manager, request)
            except RetryExhausted:
                logger.error("could not evict tail of %s", request.request_id)
            sched._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
