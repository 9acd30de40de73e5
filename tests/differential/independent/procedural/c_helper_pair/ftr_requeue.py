"""Putting requests back after a fault, or giving up on them."""
import time

from vllm.v1.request import RequestStatus


def requeue_all(sched, ts, out_ids):
    """Preempt every running request back to waiting; fill out_ids."""
    if ts is None:
        ts = time.monotonic()
    while len(sched.running) > 0:
        req = sched.running.pop()
        sched._preempt_request(req, ts)
        req.num_stale_output_tokens = 0
        req.num_in_flight_tokens = 0
        out_ids.append(req.request_id)


def abort_all(sched, engine, ids, out_ids):
    aborted = sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
    i = 0
    while i < len(aborted):
        out_ids.append(aborted[i].request_id)
        i = i + 1
    engine._send_abort_outputs(aborted)
