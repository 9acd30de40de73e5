# Intended: correct.
# Walks the running requests recursively (head, *rest), counting evicted blocks in a nonlocal closure counter, with keyword-only helper parameters; then aborts or requeues.
# switch: requeue
import time

from vllm.v1.request import RequestStatus


def unconfirmed_ids(kv, request, *, skip_null=True):
    start = request.num_computed_tokens - request.num_in_flight_tokens
    ids = set()
    for mgr in kv.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks.get(request.request_id, [])
        ids.update(b.block_id for b in blocks[start // mgr.block_size:] if not (skip_null and b.is_null))
    return ids


class FaultHandler:
    requeue = True

    def __init__(self, engine):
        self.engine = engine
        self.evicted = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        count = 0

        def evict(reqs):
            nonlocal count
            if not reqs:
                return
            head, *rest = reqs
            ids = unconfirmed_ids(kv, head, skip_null=True)
            if ids:
                kv.evict_blocks(ids)
                count += len(ids)
            evict(rest)

        evict(list(sched.running))
        self.evicted = count
        if self.requeue:
            self._requeue(sched, now=time.monotonic())
        else:
            self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    def _requeue(self, sched, *, now):
        if not sched.running:
            return
        req = sched.running.pop()
        sched._preempt_request(req, now)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0
        self._requeue(sched, now=now)
