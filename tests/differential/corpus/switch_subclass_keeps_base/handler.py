# Intended: correct on both paths. Subclass of a base class in another module
# that adds bookkeeping and delegates to super().on_fault, which evicts the
# tail and then aborts or resumes with the counters reset.
# switch: resume_on_fault
from base import RecoveringHandler


class FaultHandler(RecoveringHandler):
    faults_seen = 0

    def on_fault(self, exc):
        self.faults_seen += 1
        super().on_fault(exc)
