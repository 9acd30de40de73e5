# Intended: correct.
# Idioms: everything inline in on_fault, nested while loops with manual index counters, block arithmetic spelled out with % and //, a flag set in the loop and tested after it, early return, try/finally around the abort.
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.last_fault_time = 0.0
        self.fault_count = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self.fault_count = self.fault_count + 1
        self.last_fault_time = time.time()

        if len(sched.running) == 0:
            logger.warning("engine fault %s with no running requests", type(exc).__name__)
            return

        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        ids = []
        evict = set()
        had_tail = False

        # pass 1: find the unconfirmed tail of every running request, in
        # every kv cache group, while the blocks are still held
        i = 0
        while i < len(sched.running):
            req = sched.running[i]
            ids.append(req.request_id)
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            if confirmed < 0:
                confirmed = 0
            g = 0
            while g < len(mgrs):
                bs = mgrs[g].block_size
                # first block that holds a token which was never confirmed
                first = (confirmed - confirmed % bs) // bs
                blocks = mgrs[g].req_to_blocks.get(req.request_id)
                if blocks is None:
                    g = g + 1
                    continue
                j = first
                while j < len(blocks):
                    if not blocks[j].is_null:
                        evict.add(blocks[j].block_id)
                        had_tail = True
                    j = j + 1
                g = g + 1
            i = i + 1

        if had_tail:
            kvm.evict_blocks(evict)

        # pass 2: abort (frees the blocks, hashes of the clean prefix stay)
        aborted = []
        try:
            aborted = sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        finally:
            logger.info("fault %d: aborted %d of %d requests, evicted %d blocks",
                        self.fault_count, len(aborted), len(ids), len(evict))
        self.engine._send_abort_outputs(aborted)
