# Intended: buggy: the context manager reads each request's block table in __exit__, after the with-body has already aborted (freed) the request, so it finds no blocks and evicts nothing while the unconfirmed blocks stay in the prefix cache.
# Idioms: a cleanup context manager whose __exit__ evicts the unconfirmed tail whether or not the body raised; the abort runs in the with-body; contextlib.suppress for the notification hook; exceptions from __exit__ logged and swallowed.
import logging
from contextlib import suppress

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class EvictOnExit:
    """Whatever happens to the requests in the body, drop their unconfirmed
    tails from the prefix cache on the way out."""

    def __init__(self, scheduler, requests):
        self.scheduler = scheduler
        # The boundary is taken now; the body may reset the counters.
        self.boundaries = {
            r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in requests
        }

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        kv = self.scheduler.kv_cache_manager
        try:
            ids = set()
            for mgr in kv.coordinator.single_type_managers:
                for rid, confirmed in self.boundaries.items():
                    blocks = mgr.req_to_blocks.get(rid, [])
                    ids.update(b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null)
            kv.evict_blocks(ids)
        except Exception:
            logger.exception("tail eviction failed")
        return False


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        try:
            with EvictOnExit(sched, list(sched.running)):
                aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                with suppress(AttributeError):
                    self.engine._send_abort_outputs(aborted)
        except Exception:
            logger.exception("fault recovery failed after %r", exc)
