# Intended: buggy: the eviction boundary is num_computed_tokens // block_size, ignoring num_in_flight_tokens, so it starts past the blocks the failed step filled and the dirty blocks stay in the prefix cache.
# A class-based context manager evicts in __enter__ and the with-body preempts or aborts.
# switch: resume
import time

from vllm.v1.request import RequestStatus


class TailEviction:
    def __init__(self, scheduler):
        self.scheduler = scheduler

    def __enter__(self):
        kv = self.scheduler.kv_cache_manager
        ids = set()
        for req in self.scheduler.running:
            for mgr in kv.coordinator.single_type_managers:
                start = req.num_computed_tokens // mgr.block_size
                ids.update(b.block_id for b in mgr.req_to_blocks.get(req.request_id, ())[start:] if not b.is_null)
        kv.evict_blocks(ids)
        return self

    def __exit__(self, *exc_info):
        return False


class FaultHandler:
    resume = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        with TailEviction(sched):
            if self.resume:
                ts = time.monotonic()
                while sched.running:
                    req = sched.running.pop()
                    sched._preempt_request(req, ts)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
            else:
                self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
