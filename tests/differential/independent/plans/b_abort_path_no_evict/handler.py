# Intended: buggy: the abort-mode planner plans no eviction at all, reasoning that aborted requests are never resumed, but their freed blocks keep the failed step's hashes and any new request with the same prefix hits never-computed KV.
# Idioms: strategy objects (one planner per recovery mode) producing tuples of NamedTuple plan
# Idioms: items, run by one shared verb-dispatching executor; abort/resume switch.
# switch: resume
from __future__ import annotations

from planners import AbortPlanner, ResumePlanner, execute


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine
        self._planners = {True: ResumePlanner(), False: AbortPlanner()}

    def on_fault(self, exc):
        plan = self._planners[bool(self.resume)].plan(self.engine.scheduler)
        execute(self.engine, plan)
