# Intended: correct.
# Idioms: actions as frozen dataclasses, functools.singledispatch interpreter in a helper module, pure planner returning a tuple of actions, generator expressions, abort/resume switch.
# switch: RESUME_ON_FAULT
from __future__ import annotations

from actions import Abort, Evict, Requeue, perform


def _tail(request, manager):
    start = (request.num_computed_tokens - request.num_in_flight_tokens) // manager.block_size
    for block in manager.req_to_blocks.get(request.request_id, ())[max(start, 0):]:
        if not block.is_null:
            yield block.block_id


def recovery_actions(scheduler, resume: bool) -> tuple:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    requests = tuple(scheduler.running)
    ids = tuple(r.request_id for r in requests)
    evict = Evict(frozenset(bid for r in requests for m in managers for bid in _tail(r, m)))
    return (evict, Requeue(ids) if resume else Abort(ids))


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        for action in recovery_actions(self.engine.scheduler, self.RESUME_ON_FAULT):
            perform(action, self.engine)
