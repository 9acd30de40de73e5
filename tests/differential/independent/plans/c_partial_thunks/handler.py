# Intended: correct.
# Idioms: plan as a list of (description, functools.partial) pairs; a dry-run mode that only
# Idioms: logs the descriptions and an executor that calls the thunks in order; abort-only.
"""Abort after a failed engine step, without leaving never-computed KV findable in the
prefix cache."""

from __future__ import annotations

import logging
from functools import partial

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


def _evict(kv_cache_manager, block_ids):
    kv_cache_manager.evict_blocks(set(block_ids))


def _abort(engine, scheduler, request_ids):
    aborted = scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
    engine._send_abort_outputs(aborted)


class FaultHandler:
    def __init__(self, engine, dry_run: bool = False):
        self.engine = engine
        self.dry_run = dry_run

    def make_plan(self, scheduler):
        kv = scheduler.kv_cache_manager
        null_id = kv.block_pool.null_block.block_id
        sizes = [m.block_size for m in kv.coordinator.single_type_managers]
        running = [r for r in scheduler.running]
        plan = []
        for req in running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            per_group = kv.get_block_ids(req.request_id)
            for group, (ids, size) in enumerate(zip(per_group, sizes)):
                dirty = [i for i in ids[confirmed // size :] if i != null_id]
                if dirty:
                    plan.append(
                        (f"evict {req.request_id} group {group} blocks {dirty}", partial(_evict, kv, tuple(dirty)))
                    )
        ids = [r.request_id for r in running]
        plan.append((f"abort {ids}", partial(_abort, self.engine, scheduler, ids)))
        return plan

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        plan = self.make_plan(scheduler)
        for description, thunk in plan:
            logger.info("fault recovery%s: %s", " (dry run)" if self.dry_run else "", description)
            if not self.dry_run:
                thunk()
