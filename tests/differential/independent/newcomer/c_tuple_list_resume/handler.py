# Intended: correct.
# Idioms: a list of (request id, group, block position, block id) tuples built with append and read back by index, a backwards index loop that pops requests out of the running list by position, module-level constants, temporary variables, print() debugging; resume only, both counters cleared after the preempt.
import time

FIRST_GROUP = 0
PRINT_TABLE = True


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        table = []
        for i in range(len(scheduler.running)):
            r = scheduler.running[i]
            good = r.num_computed_tokens - r.num_in_flight_tokens
            if good < 0:
                good = 0
            g = FIRST_GROUP
            while g < len(managers):
                bs = managers[g].block_size
                lst = managers[g].req_to_blocks.get(r.request_id)
                if lst != None and len(lst) > 0:
                    for p in range(len(lst)):
                        if p >= good // bs and lst[p].is_null == False:
                            table.append((r.request_id, g, p, lst[p].block_id))
                g = g + 1
        if PRINT_TABLE == True:
            print("fault", exc, "- dirty blocks table:")
            for row in range(len(table)):
                print("   ", table[row])
        ids = set()
        for row in range(len(table)):
            ids.add(table[row][3])
        if len(ids) > 0:
            scheduler.kv_cache_manager.evict_blocks(ids)

        stamp = time.monotonic()
        i = len(scheduler.running) - 1
        while i >= 0:
            r = scheduler.running.pop(i)
            scheduler._preempt_request(r, stamp)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
            i = i - 1
        print("fault: all requests back in waiting:", len(scheduler.waiting))
