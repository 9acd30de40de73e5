# Intended: correct.
# Idioms: try/except/finally where the eviction sits in the try body and the abort of every request in the finally block, so requests are released whether or not eviction raised; contextlib.suppress for a missing notification hook; errors logged and swallowed.
"""Upstream's abort-all fault handler, plus the dirty-tail eviction it lacks."""

import logging
from contextlib import suppress

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        try:
            dirty = self._collect_dirty(scheduler)
            scheduler.kv_cache_manager.evict_blocks(dirty)
        except Exception:
            # Eviction is best effort; leaving requests running is not.
            logger.exception("could not drop unconfirmed KV blocks after %r", exc)
        else:
            logger.debug("dropped %d unconfirmed KV blocks", len(dirty))
        finally:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            with suppress(AttributeError):
                self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _collect_dirty(scheduler):
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        dirty = set()
        for request in scheduler.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in managers:
                blocks = manager.req_to_blocks.get(request.request_id)
                if blocks is None:
                    continue
                for block in blocks[confirmed // manager.block_size :]:
                    if block.is_null:
                        continue
                    dirty.add(block.block_id)
        return dirty
