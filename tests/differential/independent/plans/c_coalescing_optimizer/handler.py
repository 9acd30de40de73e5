# Intended: correct.
# Idioms: one small plan per request ((op, arg) tuples), a peephole optimiser that coalesces
# Idioms: all plans into a single union eviction followed by one batched abort, then a
# Idioms: match-statement executor; abort-only.
from __future__ import annotations

from plan_opt import coalesce
from vllm.v1.request import RequestStatus


def request_plan(kv_cache_manager, request):
    """[("evict", ids), ("abort", id)] for one request."""
    boundary = request.num_computed_tokens - request.num_in_flight_tokens
    managers = kv_cache_manager.coordinator.single_type_managers
    per_group = kv_cache_manager.get_blocks(request.request_id).blocks
    dirty: set[int] = set()
    for mgr, blocks in zip(managers, per_group):
        first = boundary // mgr.block_size
        dirty.update(blk.block_id for blk in list(blocks)[first:] if not blk.is_null)
    return [("evict", frozenset(dirty)), ("abort", request.request_id)]


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        program = coalesce(request_plan(kv, req) for req in list(scheduler.running))
        for op, arg in program:
            match op:
                case "evict":
                    kv.evict_blocks(set(arg))
                case "abort_many":
                    aborted = scheduler.finish_requests(list(arg), RequestStatus.FINISHED_ABORTED)
                    self.engine._send_abort_outputs(aborted)
                case _:
                    raise RuntimeError(f"unexpected op {op}")
