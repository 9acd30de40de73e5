# Intended: correct.
# Idioms: one threading.Thread per KV-cache group, a threading.Barrier so every group has scanned before any evicts, per-group results in a dict guarded by a threading.Lock, threads joined with a timeout, an abort/resume switch.
# switch: resume_mode
"""Fault handler with one worker thread per KV-cache group.

Each worker scans its group's tails, waits at a barrier until every group has
scanned, then evicts its own group's ids.  The main thread joins the workers
before it touches the requests.
"""

from __future__ import annotations

import threading
import time

from vllm.v1.request import RequestStatus


class _GroupWorker(threading.Thread):
    def __init__(self, manager, requests, barrier, sink, sink_lock, evict):
        super().__init__(name=f"ft-group-{manager.kv_cache_group_id}", daemon=True)
        self.manager = manager
        self.requests = requests
        self.barrier = barrier
        self.sink = sink
        self.sink_lock = sink_lock
        self.evict = evict
        self.error: BaseException | None = None

    def run(self):
        try:
            mine = set()
            bs = self.manager.block_size
            for req in self.requests:
                boundary = (req.num_computed_tokens - req.num_in_flight_tokens) // bs
                blocks = self.manager.req_to_blocks.get(req.request_id, [])
                mine.update(b.block_id for b in blocks[max(boundary, 0) :] if not b.is_null)
            with self.sink_lock:
                self.sink[self.manager.kv_cache_group_id] = mine
            self.barrier.wait(timeout=10)
            if mine:
                self.evict(mine)
        except BaseException as e:
            self.error = e
            self.barrier.abort()


class FaultHandler:
    resume_mode = False

    def __init__(self, engine):
        self.engine = engine
        self._evict_lock = threading.Lock()

    def _evict(self, ids):
        with self._evict_lock:
            self.engine.scheduler.kv_cache_manager.evict_blocks(ids)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        barrier = threading.Barrier(len(managers))
        per_group: dict[int, set[int]] = {}
        sink_lock = threading.Lock()
        workers = [
            _GroupWorker(m, requests, barrier, per_group, sink_lock, self._evict) for m in managers
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=30)
        failed = [w for w in workers if w.is_alive() or w.error is not None]
        if failed:
            raise RuntimeError(f"KV tail eviction failed in {[w.name for w in failed]}") from (
                failed[0].error
            )

        if self.resume_mode:
            t = time.monotonic()
            for req in reversed(requests):
                sched.running.remove(req)
                sched._preempt_request(req, t)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            self.engine._send_abort_outputs(
                sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            )
