# Intended: buggy: it rounds the confirmed boundary up to the next block, so the block that holds the boundary (partly written by the lost step) is never evicted after a failed decode step.
# Idioms: queue.Queue hand-off from a scanning producer thread to an evicting consumer thread, a sentinel, both threads joined, a threading.Lock around scheduler mutation, an abort/resume switch.
# switch: RESUME
"""Two-thread fault handler: one thread finds dirty blocks, the other evicts them."""

from __future__ import annotations

import queue
import threading
import time

from vllm.v1.request import RequestStatus

_STOP = None


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine
        self.lock = threading.Lock()

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        work: queue.Queue = queue.Queue()

        def scanner():
            try:
                for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                    bs = mgr.block_size
                    for req in victims:
                        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                        first_unconfirmed = -(-confirmed // bs)  # ceil: skip fully confirmed blocks
                        for blk in mgr.req_to_blocks.get(req.request_id, [])[first_unconfirmed:]:
                            if not blk.is_null:
                                work.put(blk.block_id)
            finally:
                work.put(_STOP)

        def evictor():
            batch = set()
            while (bid := work.get()) is not _STOP:
                batch.add(bid)
            if batch:
                with self.lock:
                    sched.kv_cache_manager.evict_blocks(batch)

        threads = [threading.Thread(target=scanner), threading.Thread(target=evictor)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        with self.lock:
            if self.RESUME:
                ts = time.monotonic()
                for req in reversed(victims):
                    sched.running.remove(req)
                    sched._preempt_request(req, ts)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
            else:
                self.engine._send_abort_outputs(
                    sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
                )
