# Intended: buggy: the eviction proxy resolves its marked requests into block ids only when its context exits, after finish_requests has freed the requests and popped their block lists, so nothing is evicted and the dirty tail stays in the prefix cache.
# Idioms: a __getattr__ proxy forwarding to the KV-cache manager, deferred work flushed in __exit__, getattr with a default for the engine's abort hook.
"""Abort-only fault handler using a batching eviction proxy."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from lazy_kv import DeferredEvictionKV


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        with DeferredEvictionKV(scheduler.kv_cache_manager) as kv:
            for req in running:
                kv.mark(req.request_id, req.num_computed_tokens - req.num_in_flight_tokens)
            aborted = scheduler.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        getattr(self.engine, "_send_abort_outputs", lambda _: None)(aborted)
