# Intended: correct.
# Idioms: while True loops with manual break flags and hand-kept indexes, nested ifs, explicit == False / != 0 comparisons, many temporary variables, print() debugging; resume only: the in-flight count is cleared before the preempt so that the preempt copies a zero into the stale-output count.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        print("[fault] resume all running requests because of:", exc)
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        group_managers = kv.coordinator.single_type_managers
        when = time.monotonic()
        handled = 0
        finished = False
        while True:
            if len(scheduler.running) == 0:
                finished = True
            if finished == True:
                break
            req = scheduler.running.pop()
            req_id = req.request_id
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            if confirmed < 0:
                confirmed = 0
            evict_ids = set()
            g = 0
            while True:
                if g >= len(group_managers):
                    break
                manager = group_managers[g]
                blocks = manager.req_to_blocks.get(req_id)
                if blocks != None:
                    start = confirmed // manager.block_size
                    pos = start
                    while True:
                        if pos >= len(blocks):
                            break
                        blk = blocks[pos]
                        if blk.is_null == False:
                            evict_ids.add(blk.block_id)
                        pos = pos + 1
                g = g + 1
            print("[fault]", req_id, "confirmed", confirmed, "evicting", sorted(evict_ids))
            if len(evict_ids) != 0:
                kv.evict_blocks(evict_ids)
            # the failed step never reports back: forget it before preempting
            req.num_in_flight_tokens = 0
            scheduler._preempt_request(req, when)
            handled = handled + 1
        print("[fault] preempted", handled, "requests")
