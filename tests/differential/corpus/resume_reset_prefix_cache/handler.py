# Intended: bug and over-eviction. Resumes by calling
# reset_prefix_cache(reset_running_requests=True): every request is preempted
# with drop_stale_output=True (first good frame dropped) and the whole prefix
# cache is cleared (clean prefix lost).
class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        self.engine.scheduler.reset_prefix_cache(reset_running_requests=True)
