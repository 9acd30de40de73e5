# Intended: buggy: the requeue receiver preempts with drop_stale_output=True as reset_prefix_cache does, but in a fault the failed step's output frame never arrives, so the first good output frame after the resume is dropped as stale.
# Idioms: module-level signal table with @connect(name) receivers in a helper module (registered at import), fault.before_requeue / fault.requeue signals sent with keyword arguments.
"""Resume-on-fault handler: every running request is requeued."""

import requeue_receivers  # noqa: F401  (registers the receivers)
from signal_table import send


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        requests = list(sched.running)
        send("fault.before_requeue", scheduler=sched, requests=requests)
        send("fault.requeue", scheduler=sched, requests=requests)
