# Intended: correct.
# A types.SimpleNamespace policy (behind a property switch) is dispatched with a match statement using mapping patterns and a guard; both the abort and the resume arm evict the unconfirmed tail first.
# switch: resume
import time
from types import SimpleNamespace

from vllm.v1.request import RequestStatus


def _tail_ids(kv, running):
    managers = kv.coordinator.single_type_managers
    out = set()
    for req in running:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for manager, ids in zip(managers, kv.get_block_ids(req.request_id)):
            out.update(ids[confirmed // manager.block_size:])
    out.discard(kv.block_pool.null_block.block_id)
    return out


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.cfg = SimpleNamespace(policy="abort", evict_tail=True, max_retries=3)

    @property
    def resume(self):
        return self.cfg.policy == "resume"

    @resume.setter
    def resume(self, value):
        self.cfg.policy = "resume" if value else "abort"

    def on_fault(self, exc):
        sched = self.engine.scheduler
        match vars(self.cfg):
            case {"policy": "resume", "max_retries": int(n)} if n > 0:
                self._evict(sched)
                self._requeue(sched)
            case {"policy": "abort" | "drain" | "resume"}:
                self._evict(sched)
                aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                self.engine._send_abort_outputs(aborted)
            case other:
                raise ValueError(f"unknown fault policy {other!r}")

    def _evict(self, sched):
        kv = sched.kv_cache_manager
        if self.cfg.evict_tail and (ids := _tail_ids(kv, sched.running)):
            kv.evict_blocks(ids)

    def _requeue(self, sched):
        now = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
