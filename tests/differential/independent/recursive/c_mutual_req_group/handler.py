# Intended: correct.
# Idioms: mutual recursion between a per-request walker and a per-group walker (the group walker hands back to the request walker when it runs out of groups), eviction and abort done per request at the leaf, early-return base cases.
"""Fault handler: request by request, evict the unconfirmed KV tail, then abort it."""

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._sched = sched
        self._managers = sched.kv_cache_manager.coordinator.single_type_managers
        self._aborted = []
        self._walk_request(list(sched.running), 0)
        self.engine._send_abort_outputs(self._aborted)

    def _walk_request(self, requests, i):
        if i == len(requests):
            return
        self._walk_group(requests, i, 0, set())

    def _walk_group(self, requests, i, g, pending):
        request = requests[i]
        if g == len(self._managers):
            # All groups visited: the tail is known while the blocks are still held.
            if pending:
                self._sched.kv_cache_manager.evict_blocks(pending)
            self._aborted += self._sched.finish_requests(
                request.request_id, RequestStatus.FINISHED_ABORTED
            )
            return self._walk_request(requests, i + 1)
        manager = self._managers[g]
        start = (
            request.num_computed_tokens - request.num_in_flight_tokens
        ) // manager.block_size
        for block in manager.req_to_blocks.get(request.request_id, [])[start:]:
            if not block.is_null:
                pending.add(block.block_id)
        return self._walk_group(requests, i, g + 1, pending)
