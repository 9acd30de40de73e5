# Intended: correct.
# A base class (ft_base) evicts the unconfirmed tails before calling the subclass's release hook, which aborts every request.
from ft_base import BaseFaultHandler, abort_all


class FaultHandler(BaseFaultHandler):
    def release(self, scheduler):
        aborted = abort_all(scheduler)
        self.engine._send_abort_outputs(aborted)
