# Intended: bug (older API). Copies reset_prefix_cache's line
# async_tokens_to_discard = num_output_placeholders into the fault path: the
# lost frame never arrives, so the first good frame after resume is dropped.
# vllm: 0.26
import time

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        ts = time.monotonic()
        while sched.running:
            request = sched.running.pop()
            sched._preempt_request(request, ts)
            request.async_tokens_to_discard = request.num_output_placeholders
            request.num_output_placeholders = 0
            request.num_in_flight_tokens = 0
