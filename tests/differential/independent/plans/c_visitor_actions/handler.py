# Intended: correct.
# Idioms: frozen dataclass actions with accept(); visitor classes (an Applier that performs
# Idioms: the actions, a Describer that renders them for the log); resume clears the in-flight
# Idioms: counter before the preempt; abort/resume switch.
# switch: resume_mode
from __future__ import annotations

import logging

from recovery_ir import Applier, Describer, FinishAborted, InvalidateBlocks, Requeue

logger = logging.getLogger(__name__)


class FaultHandler:
    resume_mode = False

    def __init__(self, engine):
        self.engine = engine

    def _invalidations(self, scheduler, req):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
            held = mgr.req_to_blocks.get(req.request_id) or ()
            ids = tuple(b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null)
            if ids:
                yield InvalidateBlocks(mgr.kv_cache_group_id, ids)

    def plan(self, scheduler):
        running = list(scheduler.running)
        actions = [inv for req in running for inv in self._invalidations(scheduler, req)]
        if self.resume_mode:
            actions += [Requeue(req.request_id) for req in reversed(running)]
        elif running:
            actions.append(FinishAborted(tuple(r.request_id for r in running)))
        return actions

    def on_fault(self, exc):
        actions = self.plan(self.engine.scheduler)
        describe = Describer()
        for action in actions:
            logger.info("recovery: %s", action.accept(describe))
        apply = Applier(self.engine)
        for action in actions:
            action.accept(apply)
