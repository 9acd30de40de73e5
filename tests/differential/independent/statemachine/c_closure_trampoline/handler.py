# Intended: correct.
# Idioms: states as closures built inside on_fault that return the next state function (trampoline), None as the final state, shared locals as the context, a hop counter against runaway loops.
"""Abort-on-fault recovery written as a trampoline of state closures."""

from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)

MAX_HOPS = 10


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.trace: list[str] = []

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        victims: list = []
        stale_blocks: set[int] = set()
        finished: list = []

        def gather():
            victims.extend(sched.running)
            return scan if victims else None

        def scan():
            for req in victims:
                ok_tokens = req.num_computed_tokens - req.num_in_flight_tokens
                for single in kv.coordinator.single_type_managers:
                    owned = single.req_to_blocks.get(req.request_id, [])
                    for pos, blk in enumerate(owned):
                        if blk.is_null:
                            continue
                        # A block is dirty if it ends after the confirmed boundary.
                        if (pos + 1) * single.block_size > ok_tokens:
                            stale_blocks.add(blk.block_id)
            return purge

        def purge():
            if stale_blocks:
                kv.evict_blocks(stale_blocks)
            return release

        def release():
            finished.extend(
                sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            )
            return announce

        def announce():
            self.engine._send_abort_outputs(finished)
            return None

        state = gather
        hops = 0
        while state is not None:
            hops += 1
            if hops > MAX_HOPS:
                raise RuntimeError("fault recovery trampoline did not terminate") from exc
            self.trace.append(state.__name__)
            state = state()
        log.warning("aborted %d request(s) after %s; trace=%s", len(finished), type(exc).__name__, self.trace)
