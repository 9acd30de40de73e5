# Intended: buggy: the tail eviction sits behind an environment-backed option that defaults to off, so with no environment set the handler aborts every request without evicting anything and the dirty tail stays in the prefix cache.
# Idioms: a data descriptor that reads a VLLM_FT_* environment variable built from the attribute name, an options mixin, hasattr/getattr probing of the engine.
"""Abort-only fault handler whose behaviour is switched by environment-backed options."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from ft_options import FaultOptions


class FaultHandler(FaultOptions):
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        if self.evict_unconfirmed_tail:
            ids = set()
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                for req in requests:
                    first = (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size
                    ids.update(b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[first:] if not b.is_null)
            if ids:
                sched.kv_cache_manager.evict_blocks(ids)
        aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        if self.notify_clients and hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
