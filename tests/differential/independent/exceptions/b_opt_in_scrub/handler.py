# Intended: buggy: evicting the unconfirmed tail is an opt-in option (constructor argument or environment variable) that is off by default, so with default settings the handler aborts every request and leaves the blocks of the failed step in the prefix cache.
# Idioms: ScrubDisabled exception raised to skip the scrub phase, caught next to it; try/except/else around the scrub; contextlib.suppress for the notification hook; errors logged and swallowed.
import logging
import os
from contextlib import suppress

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class ScrubDisabled(Exception):
    pass


def _env_flag(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


class FaultHandler:
    def __init__(self, engine, scrub_dirty_tail=None):
        self.engine = engine
        if scrub_dirty_tail is None:
            scrub_dirty_tail = _env_flag("VLLM_FT_SCRUB_DIRTY_TAIL")
        self.scrub_dirty_tail = scrub_dirty_tail

    def on_fault(self, exc):
        sched = self.engine.scheduler
        try:
            n = self._scrub(sched)
        except ScrubDisabled:
            logger.debug("dirty-tail scrub disabled")
        except Exception:
            logger.exception("dirty-tail scrub failed")
        else:
            logger.info("scrubbed %d blocks", n)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        with suppress(AttributeError):
            self.engine._send_abort_outputs(aborted)

    def _scrub(self, sched):
        if not self.scrub_dirty_tail:
            raise ScrubDisabled
        kv = sched.kv_cache_manager
        ids = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                held = mgr.req_to_blocks.get(req.request_id, [])
                ids.update(b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null)
        kv.evict_blocks(ids)
        return len(ids)
