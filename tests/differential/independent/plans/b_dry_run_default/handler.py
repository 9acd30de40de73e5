# Intended: buggy: the prefix-cache invalidations are planned but a policy stage drops them unless an environment variable opts in, so with defaults the handler aborts without evicting anything and the failed step's blocks stay cached.
# Idioms: a functional pipeline of plan stages (generate -> policy filter -> executor) over small
# Idioms: dict actions; the policy is read from the environment; abort-only.
from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)

# Invalidating KV on a fault is still experimental: opt in with VLLM_FT_INVALIDATE_TAIL=1.
INVALIDATE_TAIL = os.environ.get("VLLM_FT_INVALIDATE_TAIL", "0") == "1"


def generate(scheduler) -> Iterator[dict]:
    running = list(scheduler.running)
    for req in running:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
            held = mgr.req_to_blocks.get(req.request_id, [])
            ids = {b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null}
            if ids:
                yield {"action": "invalidate", "blocks": ids, "request": req.request_id}
    if running:
        yield {"action": "abort", "requests": [r.request_id for r in running]}


def policy(actions: Iterable[dict], invalidate: bool) -> Iterator[dict]:
    for a in actions:
        if a["action"] == "invalidate" and not invalidate:
            logger.info("skipping invalidation of %s (VLLM_FT_INVALIDATE_TAIL not set)", a["request"])
            continue
        yield a


def execute(engine, actions: Iterable[dict]) -> None:
    scheduler = engine.scheduler
    for a in actions:
        if a["action"] == "invalidate":
            scheduler.kv_cache_manager.evict_blocks(a["blocks"])
        elif a["action"] == "abort":
            engine._send_abort_outputs(scheduler.finish_requests(a["requests"], RequestStatus.FINISHED_ABORTED))


class FaultHandler:
    def __init__(self, engine, invalidate_tail: bool | None = None):
        self.engine = engine
        self.invalidate_tail = INVALIDATE_TAIL if invalidate_tail is None else invalidate_tail

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        # Materialise the plan before running it: the executor mutates scheduler.running.
        plan = list(policy(generate(scheduler), self.invalidate_tail))
        execute(self.engine, plan)
