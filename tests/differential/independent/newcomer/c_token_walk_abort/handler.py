# Intended: correct.
# Idioms: a block counts as dirty when its token range [start, end) reaches past the confirmed count, worked out with explicit start/end temporaries per block; nested ifs, index loops, a verbose flag read from an environment variable (off by default, only for prints), module-level constants; abort only.
import os

from vllm.v1.request import RequestStatus

VERBOSE = os.environ.get("MY_FT_VERBOSE", "0") == "1"
STATUS_FOR_ABORT = RequestStatus.FINISHED_ABORTED


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        if VERBOSE == True:
            print("token walk handler, fault:", exc)
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        group_list = kvm.coordinator.single_type_managers
        evict = set()
        ids = []
        for i in range(len(scheduler.running)):
            request = scheduler.running[i]
            ids.append(request.request_id)
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for g in range(len(group_list)):
                manager = group_list[g]
                size = manager.block_size
                blocks = manager.req_to_blocks.get(request.request_id)
                if blocks is not None:
                    for b in range(len(blocks)):
                        start = b * size
                        end = start + size
                        if end > confirmed:
                            # some token of this block was written by the failed step
                            if blocks[b].is_null == False:
                                evict.add(blocks[b].block_id)
                                if VERBOSE == True:
                                    print("  request", request.request_id, "group", g, "block", b,
                                          "tokens", start, "-", end, "id", blocks[b].block_id)
        if len(evict) > 0:
            kvm.evict_blocks(evict)
        if len(ids) > 0:
            aborted = scheduler.finish_requests(ids, STATUS_FOR_ABORT)
            self.engine._send_abort_outputs(aborted)
            if VERBOSE == True:
                print("aborted:", len(aborted))
