from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

from .tails import dirty_block_ids


class UnconfirmedTailMixin:
    def before_release(self, requests):
        kv = self.scheduler.kv_cache_manager
        ids = set()
        for request in requests:
            ids |= dirty_block_ids(kv, request)
        kv.evict_blocks(ids)
        super().before_release(requests)


class AbortOrResumeMixin:
    resume = False

    def release(self, requests):
        if self.resume:
            self._preempt(requests)
        else:
            aborted = self.scheduler.finish_requests(
                [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)

    def _preempt(self, requests):
        now = time.monotonic()
        for request in reversed(requests):
            self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
