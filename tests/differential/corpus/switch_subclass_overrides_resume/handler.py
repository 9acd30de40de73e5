# Intended: bug on the resume path. The base class (another module) evicts the
# tail and dispatches; this subclass overrides the resume step and forgets the
# counter reset the base class did.
# switch: resume_on_fault
import time

from base import RecoveringHandler


class FaultHandler(RecoveringHandler):
    def _resume(self, sched):
        ts = time.monotonic()
        while sched.running:
            request = sched.running.pop()
            sched._preempt_request(request, ts)
