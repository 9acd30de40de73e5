# Intended: correct.
# Idioms: a synchronous Promise class (helper module) with then/catch/finally_/all and an
# await_() that rethrows, arrow-style lambdas in every then(), a dict of path callbacks looked
# up by key instead of an if/else, early returns, getattr optional chaining.
# switch: resume
import logging
import time

from vllm.v1.request import RequestStatus

from promiselite import Promise

log = logging.getLogger(__name__)


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = getattr(self.engine, "scheduler", None)
        if sched is None:
            return None
        finish = {True: self._requeue, False: self._abort}[bool(self.resume)]
        return (
            Promise.resolve(list(sched.running))
            .then(lambda reqs: self._dropDirtyTail(sched, reqs))
            .then(lambda reqs: finish(sched, reqs))
            .catch(lambda err: log.error("[FT] recovery after %r failed: %r", exc, err) or Promise.reject(err).await_())
            .finally_(lambda: log.info("[FT] fault handled (%s)", "resume" if self.resume else "abort"))
            .await_()
        )

    def _dropDirtyTail(self, sched, reqs):
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        ids = set()
        for req in reqs:
            results = Promise.all([lambda r, m=m: self._tailIds(m, r) for m in managers], req)
            for group_ids in results.await_():
                ids.update(group_ids)
        if ids:
            kv.evict_blocks(ids)
        return reqs

    @staticmethod
    def _tailIds(mgr, req):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        blocks = mgr.req_to_blocks.get(req.request_id) or ()
        return [b.block_id for b in list(blocks)[confirmed // mgr.block_size:] if not b.is_null]

    def _abort(self, sched, reqs):
        if not reqs:
            return []
        aborted = sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
        getattr(self.engine, "_send_abort_outputs", lambda _a: None)(aborted)
        return aborted

    def _requeue(self, sched, reqs):
        stamp = time.monotonic()
        for req in reversed(reqs):
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens, req.num_stale_output_tokens = 0, 0
        return reqs
