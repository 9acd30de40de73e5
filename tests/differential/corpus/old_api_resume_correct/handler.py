# Intended: correct (older API). Fork on vLLM 0.26: evicts the tail, preempts,
# then resets num_in_flight_tokens and num_output_placeholders; does not touch
# async_tokens_to_discard.
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
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_output_placeholders = 0
