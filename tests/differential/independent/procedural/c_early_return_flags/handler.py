# Intended: correct.
# Idioms: module-level helper with an early return and a found flag, the block pool's own evict_blocks called directly, flags (saw_prefill, saw_decode) set in the loop and tested after it, a while loop with an else clause, an abort/resume switch.
# switch: resume_mode
import logging
import time

from vllm.v1.request import RequestStatus

LOG = logging.getLogger(__name__)


def _evict_from(pool, blocks, first, out_list):
    """Evict blocks[first:] from the prefix cache; the ids go to out_list."""
    if first >= len(blocks):
        return False
    found = False
    ids = set()
    p = first
    while p < len(blocks):
        if blocks[p].is_null:
            p = p + 1
            continue
        ids.add(blocks[p].block_id)
        out_list.append(blocks[p].block_id)
        found = True
        p = p + 1
    if found:
        pool.evict_blocks(ids)
    return found


class FaultHandler:
    resume_mode = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not sched.running:
            return
        pool = sched.kv_cache_manager.block_pool
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        saw_prefill = False
        saw_decode = False
        evicted = []
        reqs = list(sched.running)
        n = 0
        while n < len(reqs):
            req = reqs[n]
            n = n + 1
            if req.num_in_flight_tokens >= req.num_computed_tokens:
                saw_prefill = True
            else:
                saw_decode = True
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            if confirmed < 0:
                confirmed = 0
            g = 0
            while g < len(mgrs):
                held = mgrs[g].req_to_blocks.get(req.request_id)
                if held:
                    _evict_from(pool, held, confirmed // mgrs[g].block_size, evicted)
                g = g + 1
        else:
            LOG.info("fault %s: prefill=%s decode=%s, %d blocks evicted",
                     exc, saw_prefill, saw_decode, len(evicted))

        if self.resume_mode:
            ts = time.monotonic()
            n = len(reqs)
            while n > 0:
                n = n - 1
                req = reqs[n]
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            return

        rids = []
        for req in reqs:
            rids.append(req.request_id)
        aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
