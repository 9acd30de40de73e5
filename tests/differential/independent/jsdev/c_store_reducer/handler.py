# Intended: correct.
# Idioms: Redux-style store (pure reducer over {**state, ...} spreads, dispatch of action dicts,
# thunks for side effects, subscribe() listeners), action-type constants, destructuring of
# the state, a class-attribute switch between abort and resume.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus

from ftstore import Store

FAULT, TAIL_EVICTED, ABORTED, REQUEUED = "fault/received", "kv/tailEvicted", "req/aborted", "req/requeued"

INITIAL = {"phase": "idle", "evicted": frozenset(), "finished": ()}


def reducer(state, action):
    kind = action["type"]
    if kind == FAULT:
        return {**state, "phase": "recovering", "error": action["error"]}
    if kind == TAIL_EVICTED:
        return {**state, "evicted": state["evicted"] | frozenset(action["ids"])}
    if kind in (ABORTED, REQUEUED):
        return {**state, "phase": "aborted" if kind == ABORTED else "requeued", "finished": tuple(action["ids"])}
    return state


def evictTailThunk(sched, reqs):
    def thunk(dispatch, getState):
        kv = sched.kv_cache_manager
        ids = [
            blk.block_id
            for req in reqs
            for mgr in kv.coordinator.single_type_managers
            for idx, blk in enumerate(mgr.req_to_blocks.get(req.request_id, []))
            if idx >= (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size and not blk.is_null
        ]
        if ids:
            kv.evict_blocks(set(ids))
        return dispatch({"type": TAIL_EVICTED, "ids": ids})

    return thunk


def abortThunk(sched, reqs):
    def thunk(dispatch, getState):
        aborted = sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
        return dispatch({"type": ABORTED, "ids": [r.request_id for r in aborted], "requests": aborted})

    return thunk


def requeueThunk(sched, reqs):
    def thunk(dispatch, getState):
        ts = time.monotonic()
        for req in reversed(reqs):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_stale_output_tokens = req.num_in_flight_tokens = 0
        return dispatch({"type": REQUEUED, "ids": [r.request_id for r in reqs]})

    return thunk


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine
        self.store = Store(reducer, INITIAL)
        self.store.subscribe(
            lambda action, _state: action["type"] == ABORTED
            and getattr(self.engine, "_send_abort_outputs", lambda _r: None)(action["requests"])
        )

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        dispatch = self.store.dispatch
        dispatch({"type": FAULT, "error": exc})
        if not reqs:
            return self.store.getState()
        dispatch(evictTailThunk(sched, reqs))
        dispatch(requeueThunk(sched, reqs) if self.RESUME else abortThunk(sched, reqs))
        return self.store.getState()
