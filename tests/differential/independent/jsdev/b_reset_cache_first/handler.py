# Intended: buggy: instead of evicting the tail it calls the KV-cache manager's reset_prefix_cache while the running requests still hold their blocks, which vLLM refuses (it returns False, ignored here), so nothing is evicted before the abort and every dirty block stays cached.
# Idioms: a Result-like wrapper (Ok/Err with then/orElse), fire-and-forget calls whose
# return value is ignored, arrow lambdas, optional chaining via getattr, early returns;
# abort-only handler.
import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class Ok:
    def __init__(self, value):
        self.value = value

    def then(self, fn):
        try:
            return Ok(fn(self.value))
        except Exception as err:  # noqa: BLE001
            return Err(err)

    def orElse(self, fn):
        return self


class Err:
    def __init__(self, error):
        self.error = error

    def then(self, fn):
        return self

    def orElse(self, fn):
        return fn(self.error)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = getattr(self.engine, "scheduler", None)
        if sched is None:
            return None
        return (
            Ok(list(sched.running))
            .then(lambda reqs: (sched.kv_cache_manager.reset_prefix_cache(), reqs)[1])  # wipe possibly-dirty KV
            .then(lambda reqs: sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED) if reqs else [])
            .then(lambda aborted: (getattr(self.engine, "_send_abort_outputs", lambda _a: None)(aborted), aborted)[1])
            .orElse(lambda err: log.error("[FT] abort after %r failed: %r", exc, err))
        )
