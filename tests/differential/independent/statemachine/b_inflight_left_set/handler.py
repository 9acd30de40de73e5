# Intended: buggy: on the resume path it clears the stale-output counter after the preempt but leaves num_in_flight_tokens at the lost step's count, so the requeued request's confirmed boundary is off by the lost step.
# Idioms: states as closures returning the next closure (trampoline) built by a factory method, a shared dict as the context, a final sentinel state, a hop counter, an abort/resume branch chosen by a guard inside a state.
# switch: RESUME_ON_FAULT
"""Trampoline-style recovery machine with an abort and a resume branch."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

_DONE = object()


class FaultHandler:
    RESUME_ON_FAULT = False
    HOP_LIMIT = 12

    def __init__(self, engine):
        self.engine = engine

    def _build(self, ctx: dict):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager

        def snapshot():
            ctx["reqs"] = list(sched.running)
            return find_tails

        def find_tails():
            dirty = ctx.setdefault("dirty", set())
            for r in ctx["reqs"]:
                edge = r.num_computed_tokens - r.num_in_flight_tokens
                for m in kv.coordinator.single_type_managers:
                    dirty.update(
                        b.block_id
                        for b in m.req_to_blocks.get(r.request_id, [])[edge // m.block_size:]
                        if not b.is_null
                    )
            return evict

        def evict():
            if ctx["dirty"]:
                kv.evict_blocks(ctx["dirty"])
            return resume if self.RESUME_ON_FAULT else abort

        def abort():
            ctx["aborted"] = sched.finish_requests(
                [r.request_id for r in ctx["reqs"]], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(ctx["aborted"])
            return _DONE

        def resume():
            ts = time.monotonic()
            for r in reversed(ctx["reqs"]):
                sched.running.remove(r)
                sched._preempt_request(r, ts)
            return unblock

        def unblock():
            # The preempt turned the lost step's tokens into stale output that
            # will never be delivered; forget it so the request can run again.
            for r in ctx["reqs"]:
                r.num_stale_output_tokens = 0
            return _DONE

        return snapshot

    def on_fault(self, exc):
        ctx: dict = {"exc": exc}
        state = self._build(ctx)
        for _ in range(self.HOP_LIMIT):
            if state is _DONE:
                return ctx
            state = state()
        raise RuntimeError("fault recovery did not reach its final state") from exc
