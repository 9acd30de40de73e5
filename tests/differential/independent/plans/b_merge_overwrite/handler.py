# Intended: buggy: the plan optimiser merges the per-request evictions of a KV-cache group by assigning into a dict keyed by group, so each request's tail replaces the previous one and only the last running request's dirty blocks are actually evicted.
# Idioms: a Plan object with add()/optimise()/apply(): raw (kind, group, ids) entries merged
# Idioms: into one eviction per group by an optimiser pass, then a batched release; abort/resume switch.
# switch: RESUME_ON_FAULT
from __future__ import annotations

import time
from dataclasses import dataclass, field

from vllm.v1.request import RequestStatus


@dataclass
class Plan:
    entries: list[tuple[str, object, object]] = field(default_factory=list)

    def add(self, kind: str, key, value=None) -> None:
        self.entries.append((kind, key, value))

    def optimise(self) -> "Plan":
        """One eviction per KV-cache group (fewer pool walks), releases kept in order."""
        per_group: dict[int, frozenset[int]] = {}
        rest = []
        for kind, key, value in self.entries:
            if kind == "evict":
                per_group[key] = frozenset(value)
            else:
                rest.append((kind, key, value))
        merged = Plan([("evict", g, ids) for g, ids in sorted(per_group.items())])
        merged.entries.extend(rest)
        return merged

    def apply(self, engine) -> None:
        sched = engine.scheduler
        now = time.monotonic()
        aborts = []
        for kind, key, value in self.entries:
            if kind == "evict":
                sched.kv_cache_manager.evict_blocks(set(value))
            elif kind == "abort":
                aborts.append(key)
            elif kind == "requeue":
                req = sched.requests[key]
                sched.running.remove(req)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        if aborts:
            engine._send_abort_outputs(sched.finish_requests(aborts, RequestStatus.FINISHED_ABORTED))


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        plan = Plan()
        running = list(sched.running)
        for req in running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for g, mgr in enumerate(sched.kv_cache_manager.coordinator.single_type_managers):
                held = mgr.req_to_blocks.get(req.request_id, [])
                plan.add("evict", g, [b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null])
        for req in reversed(running):
            plan.add("requeue" if self.RESUME_ON_FAULT else "abort", req.request_id)
        plan.optimise().apply(self.engine)
