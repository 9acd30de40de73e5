# Intended: correct.
# Idioms: a dataclass binary tree built recursively over the running requests (helper module), a recursive fold merging per-request block sets on the way up, in-order recursive generator for the requeue; abort or resume.
# switch: keep_requests
"""Fault handler: fold the running requests' unconfirmed tails, evict, then abort or requeue."""

import time
from operator import or_

from vllm.v1.request import RequestStatus

import reqtree


class FaultHandler:
    keep_requests = False

    def __init__(self, engine):
        self.engine = engine

    def _leaf(self, managers):
        def dirty(request):
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            out = frozenset()
            for m in managers:
                blocks = m.req_to_blocks.get(request.request_id, [])
                out |= {b.block_id for b in blocks[confirmed // m.block_size :] if not b.is_null}
            return out

        return dirty

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        root = reqtree.build(list(sched.running))
        ids = reqtree.fold(root, self._leaf(managers), or_, frozenset())
        if ids:
            sched.kv_cache_manager.evict_blocks(set(ids))
        ordered = list(reqtree.in_order(root))
        if not self.keep_requests:
            aborted = sched.finish_requests([r.request_id for r in ordered], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        now = time.monotonic()
        for request in reversed(ordered):
            sched.running.remove(request)
            sched._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
