# Intended: over-eviction. reset_prefix_cache(reset_running_requests=True),
# then re-arms every preempted request (counters to zero, drop flag off): the
# resume works, but the whole prefix cache was cleared.
class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        sched.reset_prefix_cache(reset_running_requests=True)
        for req in victims:
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            req.drop_stale_output = False
