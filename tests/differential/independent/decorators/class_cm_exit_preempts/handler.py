# Intended: correct.
# A class-based context manager scrubs the unconfirmed tail in __enter__ and only in __exit__ preempts (or aborts) the requests the body collected.
# switch: resume
import time

from vllm.v1.request import RequestStatus


class _FaultWindow:
    """``with _FaultWindow(sched, resume) as batch:`` — the batch is cleaned on
    entry; whatever the body appends to it is released on exit."""

    def __init__(self, scheduler, resume):
        self.scheduler = scheduler
        self.resume = resume
        self.batch = []

    def __enter__(self):
        kv = self.scheduler.kv_cache_manager
        ids = set()
        for req in self.scheduler.running:
            start_tok = req.num_computed_tokens - req.num_in_flight_tokens
            for m in kv.coordinator.single_type_managers:
                for blk in m.req_to_blocks.get(req.request_id, ())[start_tok // m.block_size:]:
                    if not blk.is_null:
                        ids.add(blk.block_id)
        kv.evict_blocks(ids)
        return self.batch

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            return False
        sched = self.scheduler
        if not self.resume:
            return False
        ts = time.monotonic()
        for req in reversed(self.batch):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        return False


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        with _FaultWindow(sched, self.resume) as batch:
            batch.extend(sched.running)
            if not self.resume:
                aborted = sched.finish_requests(
                    [r.request_id for r in batch], RequestStatus.FINISHED_ABORTED
                )
                self.engine._send_abort_outputs(aborted)
