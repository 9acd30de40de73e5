# Intended: correct.
# Idioms: recovery split into phases that hand control on by raising PhaseDone(next_phase); SkipRequest for requests with nothing cached in their tail; try/except/else around each phase with a bounded phase counter; failures of a phase logged and swallowed, then the abort phase still runs.
"""Abort-everything fault handler driven by phase exceptions.

Each phase either finishes the recovery (returns) or raises ``PhaseDone`` naming
the phase that runs next.  A phase that blows up is logged and recovery falls
through to the abort phase, so requests are never left running on a dead step.
"""

import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class PhaseDone(Exception):
    """Control transfer: the raising phase is done, ``next_phase`` runs next."""

    def __init__(self, next_phase):
        super().__init__(getattr(next_phase, "__name__", next_phase))
        self.next_phase = next_phase


class SkipRequest(Exception):
    """Raised while scanning a request whose unconfirmed tail holds no cached block."""


class FaultHandler:
    #: Upper bound on phase transitions; scan -> evict -> abort needs three.
    MAX_PHASES = 6

    def __init__(self, engine):
        self.engine = engine
        self._dirty_ids: set[int] = set()

    # -- driver ------------------------------------------------------------
    def on_fault(self, exc):
        logger.warning("busy loop raised %s: aborting running requests", type(exc).__name__)
        self._dirty_ids = set()
        phase = self._scan_phase
        transitions = 0
        while phase is not None:
            transitions += 1
            if transitions > self.MAX_PHASES:
                logger.error("fault recovery exceeded %d phases; giving up", self.MAX_PHASES)
                break
            try:
                phase()
            except PhaseDone as done:
                phase = done.next_phase
            except Exception:
                logger.exception("fault recovery phase %s failed", phase.__name__)
                # Whatever went wrong, the requests must not stay scheduled.
                phase = None if phase == self._abort_phase else self._abort_phase
            else:
                phase = None

    # -- phases ------------------------------------------------------------
    def _scan_phase(self):
        scheduler = self.engine.scheduler
        for request in list(scheduler.running):
            try:
                ids = self._tail_block_ids(request)
            except SkipRequest:
                logger.debug("request %s: nothing cached past its confirmed tokens", request.request_id)
            else:
                self._dirty_ids |= ids
        raise PhaseDone(self._evict_phase if self._dirty_ids else self._abort_phase)

    def _evict_phase(self):
        self.engine.scheduler.kv_cache_manager.evict_blocks(self._dirty_ids)
        logger.info("evicted %d unconfirmed KV blocks from the prefix cache", len(self._dirty_ids))
        raise PhaseDone(self._abort_phase)

    def _abort_phase(self):
        aborted = self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        try:
            self.engine._send_abort_outputs(aborted)
        except Exception:
            logger.exception("could not notify clients of %d aborted requests", len(aborted))

    # -- helpers -----------------------------------------------------------
    def _tail_block_ids(self, request) -> set[int]:
        """Block ids, over every KV-cache group, from the block holding the
        first unconfirmed token to the end of the request's block table."""
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        ids = set()
        for manager in coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id, ())
            first = confirmed // manager.block_size
            ids.update(b.block_id for b in blocks[first:] if not b.is_null)
        if not ids:
            raise SkipRequest(request.request_id)
        return ids
