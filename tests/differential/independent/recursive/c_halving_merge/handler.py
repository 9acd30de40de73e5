# Intended: correct.
# Idioms: divide-and-conquer over the running list (split in halves, frozensets merged on the way up), recursion over KV-cache groups, recursive requeue from the back of the list; abort or resume.
# switch: resume_after_fault
"""Fault handler that evicts the unconfirmed KV tail and then aborts or requeues."""

import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_after_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        victims = tuple(scheduler.running)
        groups = tuple(scheduler.kv_cache_manager.coordinator.single_type_managers)

        dirty = self._dirty_ids(victims, groups)
        if dirty:
            scheduler.kv_cache_manager.evict_blocks(set(dirty))

        if self.resume_after_fault:
            self._requeue(scheduler, list(victims), time.monotonic())
        else:
            aborted = scheduler.finish_requests(
                [r.request_id for r in victims], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)

    def _dirty_ids(self, requests, groups):
        if not requests:
            return frozenset()
        if len(requests) == 1:
            return self._request_ids(requests[0], groups)
        mid = len(requests) // 2
        return self._dirty_ids(requests[:mid], groups) | self._dirty_ids(
            requests[mid:], groups
        )

    def _request_ids(self, request, groups):
        if not groups:
            return frozenset()
        head, rest = groups[0], groups[1:]
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        tail = head.req_to_blocks.get(request.request_id, [])[
            confirmed // head.block_size :
        ]
        mine = frozenset(b.block_id for b in tail if not b.is_null)
        return mine | self._request_ids(request, rest)

    def _requeue(self, scheduler, requests, timestamp):
        # Preempt from the back so the waiting queue keeps the original order.
        if not requests:
            return
        request = requests.pop()
        scheduler.running.remove(request)
        scheduler._preempt_request(request, timestamp)
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
        self._requeue(scheduler, requests, timestamp)
