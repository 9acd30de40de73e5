# Intended: buggy: the tail eviction sits behind an environment flag that is off by default, so out of the box the dirty tail stays in the prefix cache on both paths.
# Idioms: ThreadPoolExecutor.submit with concurrent.futures.wait and a timeout, an environment-variable feature flag read in the constructor, a threading.RLock around scheduler mutation, an abort/resume switch.
# switch: resume_requests
"""Fault handler with optional, concurrent eviction of the unconfirmed tail."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ALL_COMPLETED, ThreadPoolExecutor, wait

from vllm.v1.request import RequestStatus


def _tail_ids(mgr, req):
    start = (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size
    return {b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[start:] if not b.is_null}


class FaultHandler:
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine
        self.lock = threading.RLock()
        # Eviction costs a pass over every running request; opt in where it matters.
        self.evict_dirty_tail = os.environ.get("VLLM_FT_EVICT_DIRTY_TAIL", "0") == "1"

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        if self.evict_dirty_tail:
            with ThreadPoolExecutor(max_workers=4) as pool:
                futs = [
                    pool.submit(_tail_ids, m, r)
                    for r in victims
                    for m in sched.kv_cache_manager.coordinator.single_type_managers
                ]
                done, not_done = wait(futs, timeout=10, return_when=ALL_COMPLETED)
                if not_done:
                    raise TimeoutError("dirty-tail scan timed out")
            dirty = set().union(*(f.result() for f in done))
            if dirty:
                with self.lock:
                    sched.kv_cache_manager.evict_blocks(dirty)

        with self.lock:
            if self.resume_requests:
                now = time.monotonic()
                for req in reversed(victims):
                    sched.running.remove(req)
                    sched._preempt_request(req, now)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
            else:
                aborted = sched.finish_requests(
                    [r.request_id for r in victims], RequestStatus.FINISHED_ABORTED
                )
                self.engine._send_abort_outputs(aborted)
