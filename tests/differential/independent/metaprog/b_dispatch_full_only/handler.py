# Intended: buggy: the per-group dispatch only knows full-attention managers and returns nothing for a sliding-window group, so in a hybrid model the dirty tail of the sliding-window group stays in the prefix cache.
# Idioms: functools.singledispatch on the KV-cache manager type with an empty default, operator.attrgetter chains, getattr on an f-string path name.
# switch: RESUME
"""Fault handler that dispatches per KV-cache group on the manager's type."""

from __future__ import annotations

import time
from functools import singledispatch
from operator import attrgetter

from vllm.v1.core.single_type_kv_cache_manager import FullAttentionManager
from vllm.v1.request import RequestStatus

_managers = attrgetter("kv_cache_manager.coordinator.single_type_managers")


@singledispatch
def dirty_ids(manager, request):
    # Windowed / state managers recycle their blocks as the window moves:
    # nothing of theirs outlives the request in the prefix cache.
    return frozenset()


@dirty_ids.register
def _(manager: FullAttentionManager, request):
    boundary = request.num_computed_tokens - request.num_in_flight_tokens
    held = manager.req_to_blocks.get(request.request_id, [])
    return frozenset(b.block_id for b in held[boundary // manager.block_size :] if not b.is_null)


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        ids = set()
        for manager in _managers(sched):
            for req in requests:
                ids |= dirty_ids(manager, req)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        getattr(self, f"_{'resume' if self.RESUME else 'abort'}_all")(sched, requests)

    def _abort_all(self, sched, requests):
        if requests:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            )

    def _resume_all(self, sched, requests):
        now = time.monotonic()
        for req in reversed(requests):
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
