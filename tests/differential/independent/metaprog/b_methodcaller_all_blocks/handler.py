# Intended: buggy: it evicts every block the request holds (all of get_block_ids) rather than only the unconfirmed tail, so after a failed decode step the clean, confirmed prefix is dropped from the prefix cache too and the resumed request recomputes it.
# Idioms: operator.methodcaller and operator.attrgetter built once at import, itertools.chain over per-group id lists, path chosen with getattr on an f-string.
# switch: RESUME
"""Fault handler that scrubs the faulted requests' KV blocks from the prefix cache."""

from __future__ import annotations

import itertools
import time
from operator import attrgetter, methodcaller

from vllm.v1.request import RequestStatus

_rid = attrgetter("request_id")
_NULL_BLOCK_ID = 0


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        requests = list(sched.running)
        block_ids = set()
        for rid in map(_rid, requests):
            per_group = methodcaller("get_block_ids", rid)(kv)
            block_ids.update(i for i in itertools.chain.from_iterable(per_group) if i != _NULL_BLOCK_ID)
        if block_ids:
            methodcaller("evict_blocks", block_ids)(kv)
        getattr(self, f"_{'requeue' if self.RESUME else 'abort'}")(sched, requests)

    def _abort(self, sched, requests):
        if requests:
            aborted = methodcaller("finish_requests", list(map(_rid, requests)), RequestStatus.FINISHED_ABORTED)(sched)
            self.engine._send_abort_outputs(aborted)

    def _requeue(self, sched, requests):
        stamp = time.monotonic()
        for req in reversed(requests):
            sched.running.remove(req)
            methodcaller("_preempt_request", req, stamp)(sched)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
