# Intended: buggy: the context manager evicts in its exit part, after the with-body has preempted the requests, and it reads their blocks from req_to_blocks at that point (already popped by the free), so nothing is evicted.
# A @contextlib.contextmanager "scrubbing" helper wraps the preempt/abort and cleans up the unconfirmed tail in its finally block.
# switch: resume
import contextlib
import time

from vllm.v1.request import RequestStatus


@contextlib.contextmanager
def scrubbing(scheduler):
    victims = list(scheduler.running)
    marks = [(r.request_id, r.num_computed_tokens - r.num_in_flight_tokens) for r in victims]
    try:
        yield victims
    finally:
        kv = scheduler.kv_cache_manager
        for rid, confirmed in marks:
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(rid, [])
                kv.evict_blocks({b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null})


class FaultHandler:
    resume = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        with scrubbing(sched) as victims:
            if not self.resume:
                self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
                return
            sched.running = []
            ts = time.monotonic()
            for req in reversed(victims):
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
