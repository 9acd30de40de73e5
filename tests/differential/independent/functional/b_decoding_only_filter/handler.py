# Intended: buggy: it filters the running requests down to those that have already produced output tokens, assuming a request still in prefill has nothing cached, but vLLM caches full prompt blocks at schedule time, so a failed prefill leaves its dirty blocks in the prefix cache.
# Idioms: filter with a named predicate, operator.attrgetter, itertools.chain.from_iterable, generator functions with yield from, abort/resume switch.
# switch: resume_mode
from __future__ import annotations

import time
from itertools import chain

from vllm.v1.request import RequestStatus


def has_output(request) -> bool:
    """Only requests past their prefill have KV beyond what the prompt lookup gave them."""
    return request.num_output_tokens > 0


def tail_ids(request, managers):
    confirmed = max(request.num_computed_tokens - request.num_in_flight_tokens, 0)
    for m in managers:
        yield from (b.block_id for b in m.req_to_blocks.get(request.request_id, ())[confirmed // m.block_size:]
                    if not b.is_null)


def dirty_ids(requests, managers):
    return set(chain.from_iterable(tail_ids(r, managers) for r in filter(has_output, requests)))


class FaultHandler:
    resume_mode = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        sched.kv_cache_manager.evict_blocks(
            dirty_ids(running, sched.kv_cache_manager.coordinator.single_type_managers)
        )
        if not self.resume_mode:
            aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        sched.running = []
        ts = time.monotonic()
        for r in reversed(running):
            r.num_in_flight_tokens = 0
            sched._preempt_request(r, ts)
