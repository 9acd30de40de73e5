# Intended: correct.
# Idioms: concurrent.futures.ThreadPoolExecutor with executor.map over the running requests, functools.partial, a helper module for the block arithmetic, a threading.Lock around every scheduler mutation, abort only.
"""Abort-on-fault handler that computes the dirty tails on a small thread pool."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from vllm.v1.request import RequestStatus

from tail_math import tail_block_ids

_SCHEDULER_LOCK = threading.Lock()


class FaultHandler:
    max_workers = 4

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = tuple(sched.kv_cache_manager.coordinator.single_type_managers)
        running = list(sched.running)

        dirty: set[int] = set()
        with ThreadPoolExecutor(max_workers=self.max_workers, thread_name_prefix="ft-scan") as pool:
            for ids in pool.map(partial(tail_block_ids, managers), running):
                dirty.update(ids)

        with _SCHEDULER_LOCK:
            if dirty:
                sched.kv_cache_manager.evict_blocks(dirty)
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
