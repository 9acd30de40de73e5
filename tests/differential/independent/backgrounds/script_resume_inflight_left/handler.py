# Intended: buggy: on resume it evicts the tail and preempts correctly but only clears num_stale_output_tokens; num_in_flight_tokens stays set on the waiting request.
# Idioms: script style: one procedural method, for loop with counters, a copy of the running list, logging via module-level logger.
import logging
import time

log = logging.getLogger("fault")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        log.warning("step failed (%s), resuming running requests", exc)
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        mgrs = kv.coordinator.single_type_managers
        reqs = list(s.running)
        dirty = set()
        for r in reqs:
            ok_tokens = r.num_computed_tokens - r.num_in_flight_tokens
            for m in mgrs:
                blist = m.req_to_blocks.get(r.request_id, [])
                for b in blist[ok_tokens // m.block_size:]:
                    dirty.add(b.block_id)
        if dirty:
            kv.evict_blocks(dirty)
        log.info("evicted %d blocks", len(dirty))

        t = time.monotonic()
        n = 0
        for r in reqs:
            s.running.remove(r)
            s._preempt_request(r, t)
            # the stale counter is what makes the scheduler wait: clear it
            r.num_stale_output_tokens = 0
            n += 1
        log.info("preempted %d requests", n)
