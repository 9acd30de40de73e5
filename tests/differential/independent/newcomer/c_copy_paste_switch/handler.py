# Intended: correct.
# Idioms: one long on_fault with the abort and the resume branch copy-pasted from each other, an abort/resume class attribute compared with == True, nested ifs instead of guard clauses, index loops, temporary variables, logging.info debugging, the counters of the resumed request cleared by hand after the preempt.
# switch: RESUME_INSTEAD_OF_ABORT
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger("my_fault_handler")


class FaultHandler:
    # set this to True to keep requests alive after a fault (they get recomputed)
    RESUME_INSTEAD_OF_ABORT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        logger.info("on_fault called with %s", exc)
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager

        if self.RESUME_INSTEAD_OF_ABORT == True:
            # ---------------- RESUME ----------------
            logger.info("resume path")
            now = time.monotonic()
            while len(sched.running) > 0:
                request = sched.running.pop()
                rid = request.request_id
                good_tokens = request.num_computed_tokens - request.num_in_flight_tokens
                if good_tokens < 0:
                    good_tokens = 0
                ids = set()
                all_managers = kvm.coordinator.single_type_managers
                for k in range(len(all_managers)):
                    m = all_managers[k]
                    first = good_tokens // m.block_size
                    if rid in m.req_to_blocks:
                        req_blocks = m.req_to_blocks[rid]
                        for idx in range(len(req_blocks)):
                            if idx >= first:
                                if req_blocks[idx].is_null == False:
                                    ids.add(req_blocks[idx].block_id)
                logger.info("request %s: evict %s", rid, ids)
                if len(ids) != 0:
                    kvm.evict_blocks(ids)
                sched._preempt_request(request, now)
                # the lost step will never send its output, so nothing is stale
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
            logger.info("resume path done")
        else:
            # ---------------- ABORT ----------------
            logger.info("abort path")
            to_abort = []
            for j in range(len(sched.running)):
                request = sched.running[j]
                rid = request.request_id
                good_tokens = request.num_computed_tokens - request.num_in_flight_tokens
                if good_tokens < 0:
                    good_tokens = 0
                ids = set()
                all_managers = kvm.coordinator.single_type_managers
                for k in range(len(all_managers)):
                    m = all_managers[k]
                    first = good_tokens // m.block_size
                    if rid in m.req_to_blocks:
                        req_blocks = m.req_to_blocks[rid]
                        for idx in range(len(req_blocks)):
                            if idx >= first:
                                if req_blocks[idx].is_null == False:
                                    ids.add(req_blocks[idx].block_id)
                logger.info("request %s: evict %s", rid, ids)
                if len(ids) != 0:
                    kvm.evict_blocks(ids)
                to_abort.append(rid)
            finished = sched.finish_requests(to_abort, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(finished)
            logger.info("abort path done, %d aborted", len(finished))
