# Intended: correct.
# Idioms: frozen slots kw_only dataclass policy with default-on eviction, enum.Enum disposition matched with typing.assert_never, keyword-only helpers, dict.setdefault grouping by manager.
# switch: resume_requests
"""Apply the fault policy: evict the unconfirmed tail (on by default), then abort or preempt."""

from __future__ import annotations

import time
from typing import Any, assert_never

from vllm.v1.request import RequestStatus

from ft_policy import Disposition, FaultPolicy


class FaultHandler:
    resume_requests: bool = False

    def __init__(self, engine: Any, *, policy: FaultPolicy | None = None) -> None:
        self.engine = engine
        self._policy = policy or FaultPolicy()

    @property
    def policy(self) -> FaultPolicy:
        wanted = Disposition.PREEMPT if self.resume_requests else Disposition.ABORT
        return self._policy if self._policy.disposition is wanted else self._policy.with_disposition(wanted)

    def on_fault(self, exc: BaseException) -> None:
        policy = self.policy
        sched = self.engine.scheduler
        requests = list(sched.running)
        if policy.evict_unconfirmed_tail:
            self._evict_tails(sched, requests, skip_null=policy.skip_null_blocks)
        match policy.disposition:
            case Disposition.ABORT:
                aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
                self.engine._send_abort_outputs(aborted)
            case Disposition.PREEMPT:
                when = time.monotonic()
                for r in reversed(requests):
                    sched.running.remove(r)
                    sched._preempt_request(r, when)
                    r.num_stale_output_tokens = 0
                    r.num_in_flight_tokens = 0
            case other:
                assert_never(other)

    @staticmethod
    def _evict_tails(sched: Any, requests: list[Any], *, skip_null: bool) -> None:
        per_group: dict[int, set[int]] = {}
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        for r in requests:
            confirmed = max(0, r.num_computed_tokens - r.num_in_flight_tokens)
            for g, mgr in enumerate(managers):
                tail = mgr.req_to_blocks.get(r.request_id, [])[confirmed // mgr.block_size :]
                per_group.setdefault(g, set()).update(
                    b.block_id for b in tail if not (skip_null and b.is_null)
                )
        sched.kv_cache_manager.evict_blocks(set().union(*per_group.values()))
