# Intended: bug: uses reset_prefix_cache(reset_running_requests=True), which preempts with drop_stale_output=True (dropping good output later) and wipes the whole prefix cache, including every clean prefix.
# Resumes by letting the scheduler preempt all running requests and clear the prefix cache.
import logging

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        if not scheduler.reset_prefix_cache(reset_running_requests=True):
            logger.warning("prefix cache reset failed after %r", exc)
