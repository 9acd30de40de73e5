"""Default subscribers to EngineFaulted."""

from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

from fault_events import EngineFaulted, FaultSubscriber, subscriber

log = logging.getLogger(__name__)


@subscriber
class UnconfirmedKVQuarantine(FaultSubscriber):
    """Evicts every block of the unconfirmed tail before anything frees the blocks."""

    priority = 10

    def notify(self, event: EngineFaulted) -> None:
        kv = event.engine.scheduler.kv_cache_manager
        sizes = kv.coordinator.group_block_sizes
        doomed: set[int] = set()
        for request in event.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for size, blocks in zip(sizes, kv.get_block_ids(request.request_id)):
                doomed.update(blocks[confirmed // size :])
        doomed.discard(kv.block_pool.null_block.block_id)
        kv.evict_blocks(doomed)


@subscriber
class AbortRunningRequests(FaultSubscriber):
    priority = 50

    def notify(self, event: EngineFaulted) -> None:
        engine = event.engine
        ids = [r.request_id for r in event.running]
        aborted = engine.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)


@subscriber
class FaultLogger(FaultSubscriber):
    priority = 90

    def notify(self, event: EngineFaulted) -> None:
        log.warning("engine fault %r: %d requests aborted", event.error, len(event.running))
