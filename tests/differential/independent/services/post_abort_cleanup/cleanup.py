"""Per-request cleanup callbacks run on requests the scheduler gave up."""

from __future__ import annotations

from collections.abc import Callable, Iterable

Cleanup = Callable[[object], None]


class CleanupChain:
    def __init__(self) -> None:
        self._steps: list[Cleanup] = []

    def then(self, step: Cleanup) -> CleanupChain:
        self._steps.append(step)
        return self

    def run(self, requests: Iterable) -> None:
        for request in requests:
            for step in self._steps:
                step(request)


def tail_evictor(kv_cache_manager) -> Cleanup:
    def _evict(request) -> None:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        ids = set()
        for mgr in kv_cache_manager.coordinator.single_type_managers:
            ids.update(b.block_id for b in mgr.req_to_blocks[request.request_id][confirmed // mgr.block_size :])
        if ids:
            kv_cache_manager.evict_blocks(ids)

    return _evict
