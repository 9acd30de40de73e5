from __future__ import annotations

from vllm.v1.request import RequestStatus


def abort_everything(engine):
    aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    engine._send_abort_outputs(aborted)
    return aborted
