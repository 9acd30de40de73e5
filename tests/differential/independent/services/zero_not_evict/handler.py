# Intended: buggy: the unconfirmed tail is only recorded for zeroing (record_blocks_for_zeroing), never evicted, so its hashes stay in the prefix cache.
# Idioms: guard clauses with continue, block-aligned start computed with the modulo trick, logging.exception in try/except around one request.
"""Abort handler that scrubs the blocks the failed step touched."""

from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        block_size = sched.block_size
        for req in sched.running:
            if req.num_in_flight_tokens <= 0:
                continue  # nothing of this request was in the failed step
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            start = confirmed - confirmed % block_size
            try:
                kv.record_blocks_for_zeroing(req.request_id, start)
            except AssertionError:
                logger.exception("cannot scrub %s from token %d", req.request_id, start)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
