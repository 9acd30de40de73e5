import time

from vllm.v1.request import RequestStatus

from .tail import tail_block_ids


def _requeue(sched):
    ts = time.monotonic()
    while sched.running:
        req = sched.running.pop()
        sched._preempt_request(req, ts)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0


def recover(sched, resume):
    sched.kv_cache_manager.evict_blocks(tail_block_ids(sched))
    if resume:
        _requeue(sched)
    else:
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
