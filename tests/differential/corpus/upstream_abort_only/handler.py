# Intended: bug: aborts every request without evicting anything, exactly like upstream EngineCoreSentinel.on_fault; the blocks cached at schedule time for the failed step keep their hashes.
# Aborts all requests and sends the abort outputs.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        engine = self.engine
        aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)
