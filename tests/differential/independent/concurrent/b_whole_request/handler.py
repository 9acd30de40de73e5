# Intended: buggy: it evicts every block the faulted requests hold, including the clean prefix written by steps that succeeded, so a resumed or repeated prompt loses its prefix-cache hits.
# Idioms: ThreadPoolExecutor.map over (request, group) pairs, itertools.product, itertools.chain over the results into a set, threading.Lock around scheduler mutation, an abort/resume switch.
# switch: requeue_on_fault
"""Fault handler that drops the faulted requests' blocks from the prefix cache in bulk."""

from __future__ import annotations

import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from vllm.v1.request import RequestStatus


class FaultHandler:
    requeue_on_fault = False

    def __init__(self, engine):
        self.engine = engine
        self.mutex = threading.Lock()

    @staticmethod
    def _held(pair):
        req, mgr = pair
        # Anything this request touched may have been written by the failed step.
        return [b.block_id for b in mgr.req_to_blocks.get(req.request_id, []) if not b.is_null]

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        pairs = itertools.product(victims, sched.kv_cache_manager.coordinator.single_type_managers)
        with ThreadPoolExecutor() as pool:
            doomed = set(itertools.chain.from_iterable(pool.map(self._held, pairs)))

        with self.mutex:
            if doomed:
                sched.kv_cache_manager.evict_blocks(doomed)
            if self.requeue_on_fault:
                stamp = time.monotonic()
                for req in reversed(victims):
                    sched.running.remove(req)
                    sched._preempt_request(req, stamp)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
            else:
                aborted = sched.finish_requests(
                    [r.request_id for r in victims], RequestStatus.FINISHED_ABORTED
                )
                self.engine._send_abort_outputs(aborted)
