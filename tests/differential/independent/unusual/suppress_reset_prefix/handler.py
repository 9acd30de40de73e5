# Intended: buggy: it calls scheduler.reset_prefix_cache() to drop the dirty hashes while the running requests still hold their blocks, so the reset refuses (returns False) and evicts nothing; the requests are aborted afterwards with their dirty tail still cached.
# Guards the reset with contextlib.suppress and finds the aborted ids with filter(lambda ...) and map(operator.attrgetter).
from contextlib import suppress
from operator import attrgetter

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.cache_reset = None

    def on_fault(self, exc):
        sched = self.engine.scheduler
        in_flight = list(filter(lambda r: r.num_in_flight_tokens > 0, sched.running))
        # Nothing computed by the failed step may be reused: drop the prefix cache.
        with suppress(RuntimeError):
            self.cache_reset = sched.reset_prefix_cache()
        ids = list(map(attrgetter("request_id"), in_flight))
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if ids:
            self.engine._send_abort_outputs(aborted)
