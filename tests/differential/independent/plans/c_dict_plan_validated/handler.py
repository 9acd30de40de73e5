# Intended: correct.
# Idioms: plan as a list of small dicts ({"op": ..., ...}) that is validated and
# Idioms: deduplicated before an apply() loop dispatches on "op" with if/elif; abort/resume switch.
# switch: RESUME_AFTER_FAULT
"""Recover from a failed engine step.

The handler writes down what it is going to do first (a list of plain dicts, easy to
log as JSON), checks that list, and only then applies it.
"""

from __future__ import annotations

import json
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class PlanError(RuntimeError):
    pass


class FaultHandler:
    RESUME_AFTER_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    # ---------------------------------------------------------------- planning
    def _plan(self, sched) -> list[dict]:
        ops: list[dict] = []
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        victims = list(sched.running)
        for req in victims:
            good_tokens = req.num_computed_tokens - req.num_in_flight_tokens
            for gid, mgr in enumerate(managers):
                blocks = mgr.req_to_blocks.get(req.request_id) or []
                start = good_tokens // mgr.block_size
                ops.append(
                    {
                        "op": "evict",
                        "request": req.request_id,
                        "group": gid,
                        "blocks": [blk.block_id for blk in blocks[start:] if blk.block_hash is not None],
                    }
                )
        if self.RESUME_AFTER_FAULT:
            for req in reversed(victims):
                ops.append({"op": "preempt", "request": req.request_id})
                ops.append({"op": "clear_counters", "request": req.request_id})
        else:
            ops.append({"op": "abort", "requests": [r.request_id for r in victims]})
        return ops

    def _validate(self, sched, ops: list[dict]) -> list[dict]:
        """Drop empty evictions and ids already evicted; check ordering and ranges."""
        n_blocks = len(sched.kv_cache_manager.block_pool.blocks)
        seen: set[int] = set()
        released: set[str] = set()
        out = []
        for op in ops:
            kind = op["op"]
            if kind == "evict":
                if op["request"] in released:
                    raise PlanError(f"eviction for {op['request']} after its blocks were released")
                ids = [i for i in op["blocks"] if i not in seen]
                for i in ids:
                    if not 0 <= i < n_blocks:
                        raise PlanError(f"block id {i} out of range")
                seen.update(ids)
                if ids:
                    out.append({**op, "blocks": ids})
            elif kind == "preempt":
                released.add(op["request"])
                out.append(op)
            elif kind == "abort":
                released.update(op["requests"])
                out.append(op)
            else:
                out.append(op)
        return out

    # ---------------------------------------------------------------- effects
    def _apply(self, sched, ops: list[dict]) -> None:
        now = time.monotonic()
        for op in ops:
            kind = op["op"]
            if kind == "evict":
                sched.kv_cache_manager.evict_blocks(set(op["blocks"]))
            elif kind == "preempt":
                req = sched.requests[op["request"]]
                sched.running.remove(req)
                sched._preempt_request(req, now)
            elif kind == "clear_counters":
                req = sched.requests[op["request"]]
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            elif kind == "abort":
                aborted = sched.finish_requests(op["requests"], RequestStatus.FINISHED_ABORTED)
                self.engine._send_abort_outputs(aborted)
            else:
                raise PlanError(f"unknown op {kind!r}")

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ops = self._validate(sched, self._plan(sched))
        if logger.isEnabledFor(logging.INFO):
            logger.info("fault recovery plan: %s", json.dumps(ops))
        self._apply(sched, ops)
