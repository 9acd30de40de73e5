import time

from vllm.v1.request import RequestStatus


def _evict_tail(sched):
    kvm = sched.kv_cache_manager
    ids = set()
    for req in sched.running:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kvm.coordinator.single_type_managers:
            ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:])
    kvm.evict_blocks(ids)


def release_running(sched, resume=False, evict=False):
    if evict:
        _evict_tail(sched)
    if not resume:
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        return
    ts = time.monotonic()
    while sched.running:
        req = sched.running.pop()
        sched._preempt_request(req, ts)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0
