# Intended: correct.
# Idioms: fluent method chaining on a plan object whose methods return self (helper module),
# lambdas as predicates and queued steps, a camelCase API, a ternary picking the branch,
# getattr-based optional call.
# switch: resumeRequests
from fault_plan import FaultPlan


class FaultHandler:
    resumeRequests = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        plan = FaultPlan(self.engine.scheduler).where(lambda r: r.request_id is not None).evictUnconfirmedTail()
        if self.resumeRequests:
            plan.preempt().clearInFlight().run()
            return
        aborted = plan.abort().run() or []
        notify = getattr(self.engine, "_send_abort_outputs", None)
        notify and notify(aborted)
