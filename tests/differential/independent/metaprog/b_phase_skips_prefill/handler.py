# Intended: buggy: requests whose failed step was a prefill are given no blocks to evict, on the belief that a prefill caches nothing until it completes, but vLLM caches full blocks when it schedules the step, so a failed prefill leaves its prompt blocks in the prefix cache.
# Idioms: per-request dispatch to _tail_for_<phase> methods looked up with getattr on an f-string, a property computing the request's phase name, a switch attribute picking the finish method by name.
# switch: RESUME
"""Fault handler that selects tail blocks per request phase."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


class _Faulted:
    __slots__ = ("request",)

    def __init__(self, request):
        self.request = request

    @property
    def phase(self):
        r = self.request
        return "decode" if r.num_computed_tokens > r.num_prompt_tokens else "prefill"

    @property
    def confirmed(self):
        return self.request.num_computed_tokens - self.request.num_in_flight_tokens


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        faulted = [_Faulted(r) for r in sched.running]
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        ids = set()
        for item in faulted:
            ids |= getattr(self, f"_tail_for_{item.phase}")(item, managers)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        getattr(self, "_finish_" + ("resume" if self.RESUME else "abort"))(sched, [f.request for f in faulted])

    def _tail_for_prefill(self, item, managers):
        # The prompt's blocks are only committed once the prefill step returns.
        return set()

    def _tail_for_decode(self, item, managers):
        ids = set()
        for mgr in managers:
            held = mgr.req_to_blocks.get(item.request.request_id, [])
            ids.update(b.block_id for b in held[item.confirmed // mgr.block_size :] if not b.is_null)
        return ids

    def _finish_abort(self, sched, requests):
        if requests:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            )

    def _finish_resume(self, sched, requests):
        stamp = time.monotonic()
        for req in reversed(requests):
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
