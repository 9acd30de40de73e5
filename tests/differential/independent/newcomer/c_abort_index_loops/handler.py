# Intended: correct.
# Idioms: index-based for loops over the running list, the KV-cache groups and the block lists, many temporary variables, print() debugging left in, explicit == True / != None / len(x) > 0 comparisons, a set built by hand, a fault counter kept on the instance.
from vllm.v1.request import RequestStatus

DEBUG_PRINTS = True


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.fault_count = 0

    def on_fault(self, exc):
        self.fault_count = self.fault_count + 1
        if DEBUG_PRINTS == True:
            print("FaultHandler: fault number", self.fault_count, "->", repr(exc))

        scheduler = self.engine.scheduler
        kv_manager = scheduler.kv_cache_manager
        coordinator = kv_manager.coordinator
        managers = coordinator.single_type_managers
        running_list = scheduler.running

        ids_to_abort = []
        blocks_to_evict = set()
        number_of_blocks = 0

        for i in range(len(running_list)):
            req = running_list[i]
            req_id = req.request_id
            computed = req.num_computed_tokens
            in_flight = req.num_in_flight_tokens
            # tokens before this point came back from a good step
            confirmed = computed - in_flight
            if confirmed < 0:
                confirmed = 0
            for g in range(len(managers)):
                mgr = managers[g]
                bs = mgr.block_size
                first_bad_block = confirmed // bs
                blocks = mgr.req_to_blocks.get(req_id)
                if blocks != None:
                    for j in range(len(blocks)):
                        if j >= first_bad_block:
                            blk = blocks[j]
                            if blk.is_null == False:
                                blocks_to_evict.add(blk.block_id)
                                number_of_blocks = number_of_blocks + 1
            ids_to_abort.append(req_id)

        if DEBUG_PRINTS == True:
            print("FaultHandler: evicting", number_of_blocks, "blocks:", blocks_to_evict)
        if len(blocks_to_evict) > 0:
            kv_manager.evict_blocks(blocks_to_evict)

        if len(ids_to_abort) > 0:
            aborted = scheduler.finish_requests(ids_to_abort, RequestStatus.FINISHED_ABORTED)
            if DEBUG_PRINTS == True:
                print("FaultHandler: aborted", len(aborted), "requests")
            self.engine._send_abort_outputs(aborted)
