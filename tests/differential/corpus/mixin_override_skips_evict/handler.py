# Intended: bug: the subclass overrides before_release() to add logging and forgets to call super(), so the base class's tail eviction never runs on either path.
# Subclasses a template handler whose before_release hook evicts the unconfirmed tail and whose release aborts or preempts.
# switch: resume
import logging

from ft_mixins import EvictingFaultHandlerBase

logger = logging.getLogger(__name__)


class FaultHandler(EvictingFaultHandlerBase):
    resume = False

    def before_release(self, scheduler):
        logger.warning(
            "fault: releasing %d running / %d waiting requests (resume=%s)",
            len(scheduler.running), len(scheduler.waiting), self.resume,
        )
