# Intended: correct.
# Idioms: builds a nested list (request -> group -> tail blocks) and flattens it with a recursive generator that recurses into any list (yield from), recursion depth given by the data; switchable abort or preempt.
# switch: preempt_instead_of_abort
"""Fault handler that flattens a nested per-request, per-group tail structure before evicting."""

import time

from vllm.v1.request import RequestStatus


def flatten(node):
    if isinstance(node, list):
        for child in node:
            yield from flatten(child)
    else:
        yield node


class FaultHandler:
    preempt_instead_of_abort = False

    def __init__(self, engine):
        self.engine = engine

    def _nested_tails(self, requests, managers):
        return [
            [
                m.req_to_blocks.get(r.request_id, [])[
                    (r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size :
                ]
                for m in managers
            ]
            for r in requests
        ]

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        ids = {blk.block_id for blk in flatten(self._nested_tails(running, managers)) if not blk.is_null}
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)

        if self.preempt_instead_of_abort:
            ts = time.monotonic()
            for req in running[::-1]:
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            finished = sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(finished)
