# Intended: correct on both paths. Same shared helper as a handler that
# forgets the flag, called here with evict=True: the tail is evicted before
# the helper frees, on both paths.
# switch: resume_on_fault
from recovery import release_running


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        release_running(self.engine.scheduler, resume=self.resume_on_fault, evict=True)
