# Intended: correct.
# Idioms: promise-like Result objects (Result.ok / Result.err / Result.attempt) chained with
# then()/catch()/unwrap(), arrow-style lambdas, destructuring of (request, block ids) pairs,
# early returns, abort/resume chosen by a class attribute.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


class Result:
    """Rust/JS-ish result: either ok(value) or err(error); then() only runs on ok."""

    __slots__ = ("ok", "value", "error")

    def __init__(self, ok, value=None, error=None):
        self.ok, self.value, self.error = ok, value, error

    @classmethod
    def of(cls, value):
        return cls(True, value)

    @classmethod
    def fail(cls, error):
        return cls(False, error=error)

    @classmethod
    def attempt(cls, fn, *args):
        try:
            return cls.of(fn(*args))
        except Exception as e:  # noqa: BLE001 - turned into an err() and re-raised by unwrap()
            return cls.fail(e)

    def then(self, fn):
        return Result.attempt(fn, self.value) if self.ok else self

    def catch(self, fn):
        return self if self.ok else Result.attempt(fn, self.error)

    def unwrap(self):
        if not self.ok:
            raise self.error
        return self.value


def tail_block_ids(kv, req):
    """Block ids holding tokens [confirmed, num_computed_tokens) in every KV-cache group."""
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    return {
        b.block_id
        for mgr in kv.coordinator.single_type_managers
        for b in (mgr.req_to_blocks.get(req.request_id) or [])[confirmed // mgr.block_size:]
        if not b.is_null
    }


class FaultHandler:
    RESUME = False  # False: abort every running request; True: send them back to waiting

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not sched.running:
            return None
        return (
            Result.of(list(sched.running))
            .then(lambda reqs: self._evict(sched, reqs))
            .then(lambda reqs: self._resume(sched, reqs) if self.RESUME else self._abort(sched, reqs))
            .catch(lambda e: self._rethrow(exc, e))
            .unwrap()
        )

    def _evict(self, sched, reqs):
        kv = sched.kv_cache_manager
        pairs = [(r, tail_block_ids(kv, r)) for r in reqs]
        dirty = set().union(*(ids for _, ids in pairs))
        if dirty:
            kv.evict_blocks(dirty)
        return reqs

    def _abort(self, sched, reqs):
        aborted = sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
        getattr(self.engine, "_send_abort_outputs", lambda _: None)(aborted)
        return aborted

    def _resume(self, sched, reqs):
        now = time.monotonic()
        # Pop from the back so the requests land in the waiting queue in FIFO order.
        for req in reversed(reqs):
            sched.running.remove(req)
            sched._preempt_request(req, now)
            # The lost step's frame never comes back: nothing is stale and nothing in flight.
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        return reqs

    @staticmethod
    def _rethrow(exc, err):
        raise RuntimeError(f"fault handling for {type(exc).__name__} failed: {err}") from err
