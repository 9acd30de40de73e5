# Intended: buggy: only the resume branch evicts the lost step's blocks; the abort branch, copied from the old handler, just finishes the requests, which frees their blocks with the hashes intact, so the dirty tail stays in the prefix cache when aborting.
# Idioms: an abort/resume class attribute, a long method with the two paths written out separately, while True with a break flag, index loops, temporary variables, logging debug output, counters cleared by hand after the preempt.
# switch: RESUME_AFTER_FAULT
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger("fault_handler_v2")


class FaultHandler:
    RESUME_AFTER_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        logger.warning("on_fault(%s), resume=%s", exc, self.RESUME_AFTER_FAULT)
        if self.RESUME_AFTER_FAULT == True:
            when = time.monotonic()
            done = False
            while True:
                if len(scheduler.running) == 0:
                    done = True
                if done == True:
                    break
                request = scheduler.running.pop()
                confirmed = request.num_computed_tokens - request.num_in_flight_tokens
                ids = set()
                managers = kvm.coordinator.single_type_managers
                for g in range(len(managers)):
                    blocks = managers[g].req_to_blocks.get(request.request_id, [])
                    first = confirmed // managers[g].block_size
                    for b in range(first, len(blocks)):
                        if blocks[b].is_null == False:
                            ids.add(blocks[b].block_id)
                logger.warning("evicting %s for %s", ids, request.request_id)
                if len(ids) > 0:
                    kvm.evict_blocks(ids)
                scheduler._preempt_request(request, when)
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
        else:
            # old behaviour: give up on every request
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            logger.warning("aborted %d requests", len(aborted))
            self.engine._send_abort_outputs(aborted)
