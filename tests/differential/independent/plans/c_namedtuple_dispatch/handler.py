# Intended: correct.
# Idioms: namedtuple actions built by small factory functions, an interpreter with a
# Idioms: dispatch table keyed on the action kind; abort-only handler.
"""Abort every running request after a failed step, dropping the KV the failed step
cached but never wrote."""

from __future__ import annotations

import ft_actions


def _unconfirmed_tail(request, blocks, block_size):
    """Blocks from the one holding the confirmed boundary to the end."""
    boundary = request.num_computed_tokens - request.num_in_flight_tokens
    return [b.block_id for b in blocks[boundary // block_size :] if not b.is_null]


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def build_plan(self, scheduler):
        plan = []
        requests = list(scheduler.running)
        per_group = scheduler.kv_cache_manager.get_blocks  # request id -> KVCacheBlocks
        managers = scheduler.kv_cache_manager.coordinator.single_type_managers
        for req in requests:
            blocks_by_group = per_group(req.request_id).blocks
            for group, (blocks, manager) in enumerate(zip(blocks_by_group, managers, strict=True)):
                tail = _unconfirmed_tail(req, blocks, manager.block_size)
                if tail:
                    plan.append(ft_actions.evict(group, tail))
        if requests:
            plan.append(ft_actions.abort(r.request_id for r in requests))
        return plan

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        plan = self.build_plan(scheduler)
        ft_actions.Interpreter(scheduler, self.engine._send_abort_outputs).run(plan)
