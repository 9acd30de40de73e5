# Intended: bug. A shared helper frees the requests and evicts the tail only
# when its evict flag is set; this handler calls it with the default (False)
# on both paths, so the dirty tail stays cached on both.
# switch: resume_on_fault
from recovery import release_running


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        release_running(self.engine.scheduler, resume=self.resume_on_fault)
