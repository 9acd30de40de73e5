# Intended: buggy: a guard skips requests whose failed step was still their prefill (num_computed_tokens not past the prompt), on the belief that nothing was cached yet, but vLLM caches the full prompt blocks at schedule time, so those dirty blocks stay in the prefix cache.
# Idioms: structural pattern matching on the Request class with keyword patterns and guards, TypedDict per-request summary, generator of block ids, keyword-only helper; always aborts.
"""Abort on fault, evicting the unconfirmed tail of requests that were decoding."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypedDict

from vllm.v1.request import Request, RequestStatus


class TailSummary(TypedDict):
    request_id: str
    confirmed: int
    block_ids: list[int]


def _block_ids(managers: Any, request_id: str, *, confirmed: int) -> Iterator[int]:
    for m in managers:
        yield from (b.block_id for b in m.req_to_blocks.get(request_id, [])[confirmed // m.block_size :] if not b.is_null)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def _summaries(self, requests: list[Request]) -> Iterator[TailSummary]:
        managers = self.engine.scheduler.kv_cache_manager.coordinator.single_type_managers
        for req in requests:
            match req:
                case Request(num_in_flight_tokens=0):
                    continue
                case Request(num_computed_tokens=done, num_prompt_tokens=prompt) if done <= prompt:
                    continue  # still prefilling: nothing of it has been cached yet
                case Request(request_id=rid, num_computed_tokens=done, num_in_flight_tokens=pending):
                    confirmed = max(0, done - pending)
                    yield TailSummary(
                        request_id=rid, confirmed=confirmed, block_ids=list(_block_ids(managers, rid, confirmed=confirmed))
                    )

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        requests = list(sched.running)
        ids = {bid for s in self._summaries(requests) for bid in s["block_ids"]}
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        self.engine._send_abort_outputs(
            sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        )
