# Intended: buggy: on resume it clears num_stale_output_tokens after the preempt but leaves num_in_flight_tokens set, so the requeued request's confirmed boundary is off by the lost step.
# Idioms: a producer function and a consumer threading.Thread subclass in a helper module, a queue.Queue hand-off with a sentinel, the threads joined before returning, a shared threading.Lock, an abort/resume switch.
# switch: resume
"""Fault handler: producer finds dirty tails, a consumer thread evicts and requeues."""

from __future__ import annotations

import queue
import threading
import time

from vllm.v1.request import RequestStatus

from ft_workers import SENTINEL, Requeuer, produce_tails


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine
        self.lock = threading.Lock()

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        if self.resume:
            inbox: queue.Queue = queue.Queue()
            consumer = Requeuer(sched, inbox, self.lock, time.monotonic())
            producer = threading.Thread(
                target=produce_tails, args=(sched, list(reversed(victims)), inbox), name="ft-producer"
            )
            consumer.start()
            producer.start()
            producer.join()
            consumer.join()
            return

        inbox = queue.Queue()
        produce_tails(sched, victims, inbox)
        dirty = set()
        while (item := inbox.get_nowait()) is not SENTINEL:
            dirty |= item[1]
        with self.lock:
            if dirty:
                sched.kv_cache_manager.evict_blocks(dirty)
            aborted = sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
