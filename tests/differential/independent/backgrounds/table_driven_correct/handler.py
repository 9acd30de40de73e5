# Intended: correct. A config table drives both paths; each first evicts every running request's unconfirmed tail in all groups, then aborts or preempts and resets the counters.
# Idioms: table-driven: dicts of settings and lambdas (boundary, per-request reset), path table keyed by name, generic executor loop.
# switch: RESUME
from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

BOUNDARY = {
    "confirmed": lambda req: req.num_computed_tokens - req.num_in_flight_tokens,
    "first_block": lambda tokens, block_size: tokens // block_size,
}

RESET_AFTER_PREEMPT = {
    "num_in_flight_tokens": 0,
    "num_stale_output_tokens": 0,
}


def _evict(engine) -> None:
    sched = engine.scheduler
    kv = sched.kv_cache_manager
    ids = set()
    for req in sched.running:
        tokens = BOUNDARY["confirmed"](req)
        for mgr in kv.coordinator.single_type_managers:
            first = BOUNDARY["first_block"](tokens, mgr.block_size)
            ids |= {b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[first:]}
    if ids:
        kv.evict_blocks(ids)


def _abort(engine) -> None:
    aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    engine._send_abort_outputs(aborted)


def _resume(engine) -> None:
    sched = engine.scheduler
    ts = time.monotonic()
    for req in list(sched.running):
        sched.running.remove(req)
        sched._preempt_request(req, ts)
        for attr, value in RESET_AFTER_PREEMPT.items():
            setattr(req, attr, value)


PATHS = {
    "abort": {"steps": (_evict, _abort), "log": "aborting all requests"},
    "resume": {"steps": (_evict, _resume), "log": "preempting running requests for resume"},
}


class FaultHandler:
    RESUME = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self.log: list[str] = []

    def on_fault(self, exc) -> None:
        path = PATHS["resume" if self.RESUME else "abort"]
        self.log.append(path["log"])
        for step in path["steps"]:
            step(self.engine)
