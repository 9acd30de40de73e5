# Intended: correct. Script-style handler with a resume flag: evicts each running request's unconfirmed tail in every group (block ids from get_block_ids, block sizes from the KV-cache config), then aborts or preempts with both counters cleared.
# Idioms: script style: flags as class attributes, nested for loops with range/len, early-continue, one long method with both branches inline.
# switch: RESUME_AFTER_FAULT
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME_AFTER_FAULT = False
    LOG = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        eng = self.engine
        sch = eng.scheduler
        kvm = sch.kv_cache_manager
        groups = kvm.kv_cache_config.kv_cache_groups
        sizes = []
        for g in range(len(groups)):
            sizes.append(groups[g].kv_cache_spec.block_size)

        ids = set()
        for req in sch.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            per_group = kvm.get_block_ids(req.request_id)
            for g in range(len(per_group)):
                lst = per_group[g]
                start = confirmed // sizes[g]
                if start >= len(lst):
                    continue
                for k in range(start, len(lst)):
                    ids.add(lst[k])
        if ids:
            kvm.evict_blocks(ids)
        if self.LOG:
            print("evicted", len(ids), "blocks after", repr(exc))

        if self.RESUME_AFTER_FAULT:
            now = time.monotonic()
            todo = list(sch.running)
            for req in todo:
                sch.running.remove(req)
                sch._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            if self.LOG:
                print("preempted", len(todo))
        else:
            aborted = sch.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            eng._send_abort_outputs(aborted)
            if self.LOG:
                print("aborted", len(aborted))
