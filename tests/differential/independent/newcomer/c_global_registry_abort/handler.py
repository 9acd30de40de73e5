# Intended: correct.
# Idioms: module-level global state (a list of pending block ids, a total fault counter, constants) updated through global statements and reset at the start of each fault, a dict of per-request lists built with append, range(len()) loops, logging debug output; abort only, through finish_requests(None, ...).
import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)

ABORT_STATUS = RequestStatus.FINISHED_ABORTED
PENDING_EVICTIONS = []
TOTAL_FAULTS = 0
PER_REQUEST = {}


def remember_blocks(request_id, block_list, first_index):
    global PENDING_EVICTIONS
    for n in range(len(block_list)):
        if n < first_index:
            continue
        b = block_list[n]
        if b.is_null == True:
            continue
        PENDING_EVICTIONS.append(b.block_id)
        if request_id not in PER_REQUEST:
            PER_REQUEST[request_id] = []
        PER_REQUEST[request_id].append(b.block_id)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        global TOTAL_FAULTS, PENDING_EVICTIONS
        TOTAL_FAULTS = TOTAL_FAULTS + 1
        PENDING_EVICTIONS = []
        PER_REQUEST.clear()
        log.warning("fault #%d: %r", TOTAL_FAULTS, exc)

        s = self.engine.scheduler
        managers = s.kv_cache_manager.coordinator.single_type_managers
        for r in range(len(s.running)):
            request = s.running[r]
            ok_tokens = request.num_computed_tokens - request.num_in_flight_tokens
            for m in range(len(managers)):
                blocks_here = managers[m].req_to_blocks.get(request.request_id)
                if blocks_here == None:
                    continue
                first_index = ok_tokens // managers[m].block_size
                remember_blocks(request.request_id, blocks_here, first_index)

        log.warning("blocks per request: %s", PER_REQUEST)
        if len(PENDING_EVICTIONS) > 0:
            s.kv_cache_manager.evict_blocks(set(PENDING_EVICTIONS))
        PENDING_EVICTIONS = []

        aborted = s.finish_requests(None, ABORT_STATUS)
        log.warning("aborted %d requests", len(aborted))
        self.engine._send_abort_outputs(aborted)
