# Intended: correct.
# Idioms: module-level generator stages chained lazily (running -> spans -> tail blocks), a set-building sink drained before any abort or requeue, abort/resume switch.
# switch: RESUME_ON_FAULT
"""Fault handler written as a chain of lazy generator stages.

Each stage takes an iterable and yields to the next one; nothing touches the
scheduler until ``_drain`` pulls the whole chain, evicts what it found and
only then aborts or requeues the requests it saw.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from vllm.v1.request import Request, RequestStatus

logger = logging.getLogger(__name__)

Span = tuple[Request, int]  # request, first unconfirmed token


def unconfirmed_spans(requests: Iterable[Request]) -> Iterator[Span]:
    """Yield each request with the first token of its unconfirmed tail."""
    for req in requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        yield req, max(confirmed, 0)


def tail_blocks(spans: Iterable[Span], managers: Sequence) -> Iterator[tuple[Request, int]]:
    """Yield (request, block id) for every block from the one holding the
    confirmed boundary to the end of the request, in every KV-cache group."""
    for req, confirmed in spans:
        for mgr in managers:
            held = mgr.req_to_blocks.get(req.request_id, ())
            for block in held[confirmed // mgr.block_size :]:
                if block.is_null or block.block_hash is None:
                    continue
                yield req, block.block_id


def _drain(pairs: Iterable[tuple[Request, int]]) -> tuple[set[int], Counter[str]]:
    """The sink: pull the whole chain into a set of block ids (and a count per
    request, for the log line)."""
    block_ids: set[int] = set()
    per_request: Counter[str] = Counter()
    for req, block_id in pairs:
        block_ids.add(block_id)
        per_request[req.request_id] += 1
    return block_ids, per_request


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        victims = list(scheduler.running)

        stream = tail_blocks(unconfirmed_spans(victims), managers)
        dirty, per_request = _drain(stream)
        if dirty:
            kv.evict_blocks(dirty)
        logger.warning("fault %r: evicted unconfirmed blocks %s", exc, dict(per_request))

        if self.RESUME_ON_FAULT:
            self._requeue(scheduler, victims)
        else:
            aborted = scheduler.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _requeue(scheduler, victims: list[Request]) -> None:
        now = time.monotonic()
        for req in reversed(victims):
            scheduler.running.remove(req)
            scheduler._preempt_request(req, now)
            # The lost step's output never comes back: nothing is stale.
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
