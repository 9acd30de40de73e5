# Intended: buggy: after preempting on resume it also "returns" the lost step's tokens by subtracting num_in_flight_tokens from num_output_placeholders, which the preempt has already set to 0, so the counter goes negative; the eviction and the abort path are right.
# Idioms: a recursive generator (yield from) of tail block ids, a tail-recursive requeue carrying an accumulator of preempted ids, a small dataclass for per-request bookkeeping; abort or resume.
# switch: resume
"""Fault handler that evicts the unconfirmed tail and aborts or requeues the running requests."""

import time
from dataclasses import dataclass

from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class Lost:
    request: object
    tokens: int


def tail_ids(req, managers, g=0):
    if g == len(managers):
        return
    m = managers[g]
    start = (req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size
    for b in m.req_to_blocks.get(req.request_id, [])[start:]:
        if not b.is_null:
            yield b.block_id
    yield from tail_ids(req, managers, g + 1)


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        running = list(sched.running)
        ids = {i for r in running for i in tail_ids(r, managers)}
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        if self.resume:
            lost = [Lost(r, r.num_in_flight_tokens) for r in running]
            self._requeue(sched, lost, time.monotonic(), ())
        else:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            )

    def _requeue(self, sched, lost, ts, done):
        if not lost:
            return done
        entry = lost[-1]
        req = entry.request
        sched.running.remove(req)
        sched._preempt_request(req, ts)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0
        # The lost step's tokens will never be output: give their placeholders back.
        req.num_output_placeholders -= entry.tokens
        return self._requeue(sched, lost[:-1], ts, done + (req.request_id,))
