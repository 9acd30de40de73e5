# Intended: buggy: instead of evicting the tail blocks it resets the whole prefix cache while the faulted requests still hold their blocks, which vLLM refuses (reset_prefix_cache returns False when blocks are in use), so nothing is evicted and the dirty tail stays cached before the abort.
# Idioms: vectorised "any request has an unconfirmed tail" test with np.any over an in-flight array, np.count_nonzero for the log line, kv_cache_manager.reset_prefix_cache as a bulk invalidation, abort only.
"""Abort handler that invalidates the prefix cache when the failed step had
tokens in flight."""

from __future__ import annotations

import logging

import numpy as np

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        in_flight = np.array([r.num_in_flight_tokens for r in reqs], dtype=np.int64)
        if np.any(in_flight > 0):
            logger.warning(
                "fault with %d requests in flight: invalidating the prefix cache",
                int(np.count_nonzero(in_flight)),
            )
            sched.kv_cache_manager.reset_prefix_cache()
        aborted = sched.finish_requests(
            [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
