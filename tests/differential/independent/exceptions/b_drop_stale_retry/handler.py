# Intended: buggy: the resume path preempts with drop_stale_output=True and then clears only num_in_flight_tokens, so each requeued request is marked to drop its next output frame as stale; the failed step's frame never comes, and the first good frame after resume is thrown away.
# Idioms: bounded retry of the preempt with an attempt counter and a RequeueFailed exception; try/except/else/finally per request (finally records the outcome); errors collected and logged at the end instead of raised.
import logging
import time

logger = logging.getLogger(__name__)


class RequeueFailed(Exception):
    pass


class FaultHandler:
    max_attempts = 2

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        failures = {}
        outcome = {}
        for req in reversed(list(sched.running)):
            try:
                self._evict_tail(sched, req)
                self._requeue(sched, req)
            except RequeueFailed as err:
                failures[req.request_id] = err
            else:
                outcome[req.request_id] = "requeued"
            finally:
                outcome.setdefault(req.request_id, "failed")
        for rid, err in failures.items():
            logger.error("request %s could not be requeued after %r: %s", rid, exc, err)

    @staticmethod
    def _evict_tail(sched, req):
        kv = sched.kv_cache_manager
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        tail = set()
        for mgr in kv.coordinator.single_type_managers:
            tail.update(
                b.block_id
                for b in mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size :]
                if not b.is_null
            )
        kv.evict_blocks(tail)

    def _requeue(self, sched, req):
        attempts = 0
        while True:
            attempts += 1
            try:
                sched.running.remove(req)
                # The lost step's tokens must not be delivered after resume.
                sched._preempt_request(req, time.monotonic(), drop_stale_output=True)
            except (ValueError, AssertionError) as err:
                if attempts >= self.max_attempts:
                    raise RequeueFailed(str(err)) from err
                continue
            else:
                req.num_in_flight_tokens = 0
                return
