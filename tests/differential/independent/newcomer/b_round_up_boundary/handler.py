# Intended: buggy: it rounds the confirmed token count up to the next block, so the partly confirmed block that holds the boundary (which the failed step wrote into) is kept in the prefix cache; in a decode step that is exactly the dirty block.
# Idioms: ceiling division by hand, while True loops with break flags, temporary variables, explicit != None comparisons, print() debugging; resume only, both counters cleared after the preempt.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        print("resume handler got", exc)
        scheduler = self.engine.scheduler
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        t = time.monotonic()
        stop = False
        while True:
            if len(scheduler.running) == 0:
                stop = True
            if stop:
                break
            req = scheduler.running.pop()
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            bad = set()
            for m in managers:
                size = m.block_size
                # only whole blocks after the confirmed tokens can be bad, the
                # block with the confirmed tokens in it is still good (round up)
                first = (confirmed + size - 1) // size
                blocks = m.req_to_blocks.get(req.request_id)
                if blocks != None:
                    i = first
                    while i < len(blocks):
                        if blocks[i].is_null == False:
                            bad.add(blocks[i].block_id)
                        i = i + 1
            print("resume handler:", req.request_id, "confirmed", confirmed, "evict", bad)
            if len(bad) > 0:
                scheduler.kv_cache_manager.evict_blocks(bad)
            scheduler._preempt_request(req, t)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
