# Intended: correct.
# Idioms: functools.lru_cache on pure block arithmetic (first dirty block index, the index range built recursively as a tuple), index recursion over requests with a list accumulator returned on the way up; abort or resume.
# switch: resume
"""Fault handler with memoised block arithmetic for the unconfirmed tail."""

import functools
import time

from vllm.v1.request import RequestStatus


@functools.lru_cache(maxsize=1024)
def first_dirty_block(confirmed_tokens: int, block_size: int) -> int:
    """Index of the block holding the first unconfirmed token."""
    return confirmed_tokens // block_size


@functools.lru_cache(maxsize=1024)
def index_span(start: int, stop: int) -> tuple[int, ...]:
    """(start, start + 1, ..., stop - 1), built recursively and memoised."""
    if start >= stop:
        return ()
    return (start,) + index_span(start + 1, stop)


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        ids = self._tail_ids(running, managers, 0)
        if ids:
            sched.kv_cache_manager.evict_blocks(set(ids))
        if self.resume:
            stamp = time.monotonic()
            while running:
                req = running.pop()
                sched.running.remove(req)
                sched._preempt_request(req, stamp)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(
                [r.request_id for r in running], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)

    def _tail_ids(self, requests, managers, i):
        if i >= len(requests):
            return []
        req = requests[i]
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        found = []
        for manager in managers:
            blocks = manager.req_to_blocks.get(req.request_id, [])
            for idx in index_span(first_dirty_block(confirmed, manager.block_size), len(blocks)):
                if not blocks[idx].is_null:
                    found.append(blocks[idx].block_id)
        return found + self._tail_ids(requests, managers, i + 1)
