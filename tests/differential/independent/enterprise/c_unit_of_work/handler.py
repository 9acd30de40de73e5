# Intended: correct.
# Idioms: repository over the scheduler's running requests, unit of work that stages block evictions and request transitions and commits them in a fixed order (evictions first), context manager for the unit of work, enum for transitions; class-attribute switch.
# switch: PREEMPT_INSTEAD_OF_ABORT
"""Fault handler written against a repository / unit-of-work layer."""

from __future__ import annotations

from persistence import RequestRepository, SchedulerUnitOfWork, Transition


class FaultHandler:
    PREEMPT_INSTEAD_OF_ABORT = False

    def __init__(self, engine, repository_cls=RequestRepository, uow_cls=SchedulerUnitOfWork) -> None:
        self.engine = engine
        self._repository_cls = repository_cls
        self._uow_cls = uow_cls

    @property
    def transition(self) -> Transition:
        return Transition.PREEMPT if self.PREEMPT_INSTEAD_OF_ABORT else Transition.ABORT

    def on_fault(self, exc: Exception) -> None:
        repo = self._repository_cls(self.engine.scheduler)
        with self._uow_cls(self.engine) as uow:
            for entity in repo.running():
                uow.stage_eviction(entity.unconfirmed_block_ids())
                uow.stage_transition(entity, self.transition)
