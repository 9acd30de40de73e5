# Intended: correct.
# Idioms: chunked consumption with iter(callable, sentinel) over islice, evict_blocks called once per chunk until the stream is exhausted; starmap over (request, manager) pairs from itertools.product; abort/resume switch.
# switch: RESUME
"""Fault handler that evicts in bounded chunks.

Large deployments can have thousands of running requests; the block ids of
their unconfirmed tails are pulled in chunks of ``EVICT_CHUNK`` so no single
eviction call walks the whole pool.  Every chunk is consumed before any
request is aborted or requeued.
"""

from __future__ import annotations

import time
from itertools import chain, islice, product, starmap

from vllm.v1.request import RequestStatus

EVICT_CHUNK = 64


def chunks(iterable, size):
    it = iter(iterable)
    return iter(lambda: set(islice(it, size)), set())


def tail_of(request, manager):
    start = max(request.num_computed_tokens - request.num_in_flight_tokens, 0) // manager.block_size
    blocks = manager.req_to_blocks.get(request.request_id, ())
    return (b.block_id for b in blocks[start:] if not b.is_null)


class FaultHandler:
    RESUME = False

    def __init__(self, engine, chunk_size: int = EVICT_CHUNK) -> None:
        self.engine = engine
        self.chunk_size = chunk_size

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)
        pairs = product(running, kv.coordinator.single_type_managers)
        stream = chain.from_iterable(starmap(tail_of, pairs))

        evicted = 0
        for chunk in chunks(stream, self.chunk_size):
            kv.evict_blocks(chunk)
            evicted += len(chunk)

        if self.RESUME:
            self._resume(sched, running)
        else:
            aborted = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _resume(sched, running):
        ts = time.monotonic()
        for req in reversed(running):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
        for req in running:
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
