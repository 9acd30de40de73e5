# Intended: buggy: the tail evictor is subscribed only to the resume topic, so on the abort path the requests are aborted with the blocks written by the lost step still hashed in the prefix cache, where a new request with the same prefix hits them.
# Idioms: pub-sub with dotted topic strings and a subscriptions dict built in __init__, a topic per outcome (fault.resume / fault.abort), subscribers as bound methods, an event dataclass.
# switch: resume
"""Fault handler publishing one outcome topic."""

import time
from collections import defaultdict
from dataclasses import dataclass, field

from vllm.v1.request import RequestStatus


@dataclass
class FaultMessage:
    exc: Exception
    requests: list
    evicted: set = field(default_factory=set)


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine
        self.subscriptions = defaultdict(list)
        # Resuming requests re-hit their own cached prefix: make sure the
        # part the lost step wrote is not among the hits.
        self.subscriptions["fault.resume"].append(self.evict_unconfirmed)
        self.subscriptions["fault.resume"].append(self.requeue)
        self.subscriptions["fault.abort"].append(self.abort)

    def publish(self, topic, message):
        for subscriber in self.subscriptions[topic]:
            subscriber(message)

    def evict_unconfirmed(self, msg):
        kv = self.engine.scheduler.kv_cache_manager
        for req in msg.requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id) or []
                msg.evicted.update(b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null)
        kv.evict_blocks(msg.evicted)

    def requeue(self, msg):
        sched = self.engine.scheduler
        now = time.monotonic()
        for req in reversed(msg.requests):
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

    def abort(self, msg):
        sched = self.engine.scheduler
        aborted = sched.finish_requests([r.request_id for r in msg.requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def on_fault(self, exc):
        msg = FaultMessage(exc, list(self.engine.scheduler.running))
        self.publish("fault.resume" if self.resume else "fault.abort", msg)
