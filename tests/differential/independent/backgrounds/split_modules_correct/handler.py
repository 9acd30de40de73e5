# Intended: correct. Splits the work over modules: tail.py computes the unconfirmed tail ids of all groups, recovery.py aborts or preempts (resetting counters); the handler evicts before either.
# Idioms: code split across small modules with imports (tail.py, recovery.py), module-level functions, a switch attribute.
# switch: resume_mode
from __future__ import annotations

from recovery import abort_all, preempt_all_for_resume
from tail import unconfirmed_tail_ids


class FaultHandler:
    resume_mode = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        dirty = unconfirmed_tail_ids(kv, scheduler.running)
        if dirty:
            kv.evict_blocks(dirty)
        if self.resume_mode:
            preempt_all_for_resume(scheduler)
        else:
            abort_all(self.engine)
