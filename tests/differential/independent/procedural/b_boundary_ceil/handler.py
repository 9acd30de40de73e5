# Intended: buggy: it rounds the confirmed boundary up to the next block, so the block that holds the boundary (partly confirmed, but written by the lost step) keeps its hash in the prefix cache after a failed decode step.
# Idioms: inline ceiling division written with + (bs - 1) and //, while loops with manual counters, a flag variable tested after the loop, abort of the running requests.
import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        victims = set()
        rids = []
        any_tail = False
        i = 0
        while i < len(sched.running):
            req = sched.running[i]
            rids.append(req.request_id)
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            g = 0
            while g < len(mgrs):
                bs = mgrs[g].block_size
                # first block that starts at or after the confirmed token
                first = (confirmed + bs - 1) // bs
                blocks = mgrs[g].req_to_blocks.get(req.request_id, [])
                j = first
                while j < len(blocks):
                    if not blocks[j].is_null:
                        victims.add(blocks[j].block_id)
                        any_tail = True
                    j = j + 1
                g = g + 1
            i = i + 1
        if any_tail:
            kvm.evict_blocks(victims)
        aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        logger.warning("fault %s: %d aborted", exc, len(aborted))
