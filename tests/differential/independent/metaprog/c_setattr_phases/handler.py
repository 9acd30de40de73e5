# Intended: correct.
# Idioms: phase methods dispatched with getattr on f"_phase_{name}", hasattr checks to support both stale-output generations, setattr over computed counter names.
# switch: resume_on_fault
"""Fault handler organised as named phases; counters reset by computed names."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

# Counters that describe the lost step, by API generation: the newer scheduler
# tracks a stale-output count, the older one only output placeholders.
_COUNTERS_BY_GENERATION = {
    "num_stale_output_tokens": ("num_in_flight_tokens", "num_stale_output_tokens"),
    "async_tokens_to_discard": ("num_in_flight_tokens", "num_output_placeholders"),
}


class FaultHandler:
    resume_on_fault = False
    PHASES = ("collect", "evict", "settle")

    def __init__(self, engine):
        self.engine = engine
        self._state = {}

    def on_fault(self, exc):
        self._state = {"sched": self.engine.scheduler}
        for phase in self.PHASES:
            getattr(self, f"_phase_{phase}")()
        return self._state.get("outcome")

    def _phase_collect(self):
        sched = self._state["sched"]
        self._state["requests"] = list(sched.running)

    def _phase_evict(self):
        sched = self._state["sched"]
        ids = set()
        for mgr in getattr(sched.kv_cache_manager, "coordinator").single_type_managers:
            table = getattr(mgr, "req_to_blocks")
            for req in self._state["requests"]:
                start = getattr(req, "num_computed_tokens") - getattr(req, "num_in_flight_tokens")
                for blk in table.get(req.request_id, [])[start // mgr.block_size :]:
                    if not getattr(blk, "is_null", False):
                        ids.add(blk.block_id)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)

    def _phase_settle(self):
        mode = "requeue" if self.resume_on_fault else "abort"
        self._state["outcome"] = getattr(self, f"_settle_{mode}")(self._state["sched"], self._state["requests"])

    def _settle_abort(self, sched, requests):
        if not requests:
            return []
        aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
        return aborted

    def _settle_requeue(self, sched, requests):
        stamp = time.monotonic()
        for req in reversed(requests):
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            for marker, counters in _COUNTERS_BY_GENERATION.items():
                if hasattr(req, marker):
                    for counter in counters:
                        setattr(req, counter, 0)
                    break
        return requests
