# Intended: buggy: the tail is read from req_to_blocks only after finish_requests has freed the requests, so the lists are gone and nothing is evicted.
# Idioms: fluent callback chain (closures) in a helper module, run over the list finish_requests returns.
"""Abort, then run cleanup callbacks over the aborted requests."""

from __future__ import annotations

from cleanup import CleanupChain, tail_evictor
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine
        self.cleanup = CleanupChain().then(tail_evictor(engine.scheduler.kv_cache_manager))

    def on_fault(self, exc: BaseException) -> None:
        aborted = self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        try:
            self.cleanup.run(aborted)
        finally:
            self.engine._send_abort_outputs(aborted)
