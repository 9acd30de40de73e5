# Intended: buggy: aborts every request through a Go-style (result, err) wrapper but never evicts the unconfirmed tail, so the failed step's cached blocks keep their hashes.
# Idioms: (result, err) tuples, guard clauses, module-level constants, explicit error strings
import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)

ERR_NIL_SCHEDULER = "scheduler is nil"
ABORTED = RequestStatus.FINISHED_ABORTED


def abort_all(sched):
    if sched is None:
        return None, ERR_NIL_SCHEDULER
    try:
        gone = sched.finish_requests(None, ABORTED)
    except Exception as e:  # noqa: BLE001 - converted to an error value
        return None, str(e)
    return gone, None


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        gone, err = abort_all(self.engine.scheduler)
        if err is not None:
            log.error("abort failed: %s", err)
            return
        self.engine._send_abort_outputs(gone)
