"""What happens to the requests once their dirty tail is gone."""
from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


def abort_all(engine) -> list:
    aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    engine._send_abort_outputs(aborted)
    return aborted


def preempt_all_for_resume(scheduler) -> int:
    timestamp = time.monotonic()
    count = 0
    for request in list(scheduler.running):
        scheduler.running.remove(request)
        scheduler._preempt_request(request, timestamp)
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
        count += 1
    return count
