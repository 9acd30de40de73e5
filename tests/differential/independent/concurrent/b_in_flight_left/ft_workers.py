"""Producer/consumer helpers for the fault handler."""

from __future__ import annotations

import queue
import threading

SENTINEL = object()


def produce_tails(scheduler, requests, out: queue.Queue) -> None:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    try:
        for req in requests:
            confirmed = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
            ids = set()
            for m in managers:
                ids.update(
                    b.block_id
                    for b in m.req_to_blocks.get(req.request_id, [])[confirmed // m.block_size :]
                    if not b.is_null
                )
            out.put((req, ids))
    finally:
        out.put(SENTINEL)


class Requeuer(threading.Thread):
    """Consumes (request, dirty ids): evicts the ids, then sends the request back to waiting."""

    def __init__(self, scheduler, inbox: queue.Queue, lock: threading.Lock, timestamp: float):
        super().__init__(name="ft-requeuer", daemon=True)
        self.scheduler = scheduler
        self.inbox = inbox
        self.lock = lock
        self.timestamp = timestamp
        self.done: list = []

    def run(self):
        while (item := self.inbox.get()) is not SENTINEL:
            req, ids = item
            with self.lock:
                if ids:
                    self.scheduler.kv_cache_manager.evict_blocks(ids)
                self.scheduler.running.remove(req)
                self.scheduler._preempt_request(req, self.timestamp)
                # The lost step's output will never be delivered.
                req.num_stale_output_tokens = 0
            self.done.append(req)
