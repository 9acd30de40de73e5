# Intended: correct.
# Idioms: a producer thread and a consumer thread handing block-id batches over a queue.Queue with a sentinel, both joined before anything is freed, a threading.Lock shared by the consumer and the main thread, an abort/resume switch.
# switch: RESUME
"""Fault handler built as a two-stage pipeline.

The producer walks (request, KV-cache group) pairs and enqueues the ids of the
unconfirmed tail; the consumer evicts each batch as it arrives.  Both threads
are joined before the requests are aborted or preempted, so eviction always
happens while the requests still own their blocks.
"""

from __future__ import annotations

import queue
import threading
import time

from vllm.v1.request import RequestStatus

_DONE = object()


class FaultHandler:
    RESUME = False
    JOIN_TIMEOUT_S = 30.0

    def __init__(self, engine):
        self.engine = engine
        self._lock = threading.Lock()

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        batches: queue.Queue = queue.Queue(maxsize=16)
        errors: list[BaseException] = []

        def produce():
            try:
                managers = sched.kv_cache_manager.coordinator.single_type_managers
                for req in running:
                    boundary = req.num_computed_tokens - req.num_in_flight_tokens
                    for mgr in managers:
                        held = mgr.req_to_blocks.get(req.request_id, [])
                        tail = held[max(boundary, 0) // mgr.block_size :]
                        ids = {b.block_id for b in tail if not b.is_null}
                        if ids:
                            batches.put(ids)
            except BaseException as e:  # surfaced after join
                errors.append(e)
            finally:
                batches.put(_DONE)

        def consume():
            while True:
                item = batches.get()
                try:
                    if item is _DONE:
                        return
                    with self._lock:
                        sched.kv_cache_manager.evict_blocks(item)
                finally:
                    batches.task_done()

        workers = [
            threading.Thread(target=produce, name="ft-tail-producer", daemon=True),
            threading.Thread(target=consume, name="ft-tail-consumer", daemon=True),
        ]
        for t in workers:
            t.start()
        for t in workers:
            t.join(self.JOIN_TIMEOUT_S)
            if t.is_alive():
                raise TimeoutError(f"{t.name} did not finish within {self.JOIN_TIMEOUT_S}s")
        if errors:
            raise errors[0]

        with self._lock:
            if self.RESUME:
                stamp = time.monotonic()
                while sched.running:
                    req = sched.running.pop()
                    sched._preempt_request(req, stamp)
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
            else:
                ids = [r.request_id for r in running]
                self.engine._send_abort_outputs(
                    sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
                )
