# Intended: correct.
# Idioms: head/tail recursion over the running list (first, *rest), index recursion over KV-cache groups, a set accumulator passed down both recursions, base cases as early returns; aborts everything after one eviction.
"""Abort-on-fault handler that first evicts each running request's unconfirmed KV tail."""

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        running = list(scheduler.running)

        dirty = self._collect(running, managers, set())
        if dirty:
            kv.evict_blocks(dirty)

        aborted = scheduler.finish_requests(
            [r.request_id for r in running], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)

    def _collect(self, requests, managers, acc):
        if not requests:
            return acc
        first, *rest = requests
        confirmed = first.num_computed_tokens - first.num_in_flight_tokens
        self._collect_groups(first.request_id, confirmed, managers, 0, acc)
        return self._collect(rest, managers, acc)

    def _collect_groups(self, request_id, confirmed, managers, group, acc):
        if group >= len(managers):
            return
        manager = managers[group]
        blocks = manager.req_to_blocks.get(request_id, ())
        self._collect_blocks(blocks, confirmed // manager.block_size, acc)
        self._collect_groups(request_id, confirmed, managers, group + 1, acc)

    def _collect_blocks(self, blocks, index, acc):
        if index >= len(blocks):
            return
        block = blocks[index]
        if not block.is_null:
            acc.add(block.block_id)
        self._collect_blocks(blocks, index + 1, acc)
