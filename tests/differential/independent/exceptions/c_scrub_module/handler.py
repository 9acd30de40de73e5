# Intended: correct.
# Idioms: helper module with its own exception hierarchy (ScrubError, NothingToScrub, RequestGone); contextlib.suppress for the expected NothingToScrub; other ScrubErrors logged and swallowed; on resume the in-flight counter is zeroed after the tail is computed and before the preempt, which then leaves no stale output; abort/resume switch.
# switch: resume
import logging
import time
from contextlib import suppress

from vllm.v1.request import RequestStatus

from tailscrub import NothingToScrub, ScrubError, confirmed_tokens, scrub_tail

logger = logging.getLogger(__name__)


class FaultHandler:
    resume = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        victims = list(scheduler.running)
        for request in victims:
            try:
                with suppress(NothingToScrub):
                    scrub_tail(scheduler, request, confirmed_tokens(request))
            except ScrubError as err:
                logger.warning("skipping scrub of %s: %s", request.request_id, err)
        if self.resume:
            self._resume(scheduler, victims)
        else:
            aborted = scheduler.finish_requests(
                [r.request_id for r in victims], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _resume(scheduler, victims):
        now = time.monotonic()
        for request in reversed(victims):
            try:
                scheduler.running.remove(request)
            except ValueError:
                logger.warning("request %s left the running queue during recovery", request.request_id)
                continue
            # Output of the failed step never arrives: nothing is in flight.
            # _preempt_request copies this into num_stale_output_tokens.
            request.num_in_flight_tokens = 0
            scheduler._preempt_request(request, now)
