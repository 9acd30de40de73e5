"""A fault handler as a fork might write it, with most of the mistakes ftlint checks for.

`ftlint check ftlint/examples/bad_fault_handler.py` (or `make demo`) shows the findings;
`ftlint check --diff` shows the safe fixes. The module is never imported.
"""

import time

from vllm.v1.request import RequestStatus


class EngineCoreSentinel:
    def __init__(self, engine, resume_on_fault: bool) -> None:
        self.engine = engine
        self.resume_on_fault = resume_on_fault

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        if self.resume_on_fault:
            now = time.monotonic()
            for request in running:
                # Inline eviction of every block, with a defensive range check.
                manager = scheduler.kv_cache_manager.coordinator.single_type_managers[0]
                block_ids = {b.block_id for b in manager.req_to_blocks[request.request_id]}
                pool = scheduler.kv_cache_manager.block_pool
                block_ids = {b for b in block_ids if 0 <= b < len(pool.blocks)}
                scheduler.kv_cache_manager.evict_blocks(block_ids)
                scheduler._preempt_request(request, now, drop_stale_output=True)
                request.async_tokens_to_discard = request.num_output_placeholders
        else:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self._evict_unconfirmed_tails(running)
            self.engine._send_abort_outputs(aborted)

    def _evict_unconfirmed_tails(self, requests) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        for request in requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for group in kv.coordinator.single_type_managers:
                tail = group.req_to_blocks[request.request_id][confirmed // group.block_size :]
                kv.evict_blocks({block.block_id for block in tail if not block.is_null})
