"""Recovery steps that register themselves via __init_subclass__, in order."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


class Step:
    _chain: list[type["Step"]] = []
    order = 0
    paths = ("abort", "resume")

    def __init_subclass__(cls, *, order, paths=("abort", "resume"), **kwargs):
        super().__init_subclass__(**kwargs)
        cls.order = order
        cls.paths = tuple(paths)
        Step._chain.append(cls)
        Step._chain.sort(key=lambda c: c.order)

    @classmethod
    def chain_for(cls, path):
        return [step for step in cls._chain if path in step.paths]

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self):
        raise NotImplementedError


class CollectTails(Step, order=10):
    def run(self):
        ids = set()
        for mgr in self.ctx.scheduler.kv_cache_manager.coordinator.single_type_managers:
            for req in self.ctx.requests:
                first = (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                ids.update(b.block_id for b in blocks[first:] if not b.is_null)
        self.ctx.tail_ids = ids


class EvictTails(Step, order=20):
    def run(self):
        if self.ctx.tail_ids:
            self.ctx.scheduler.kv_cache_manager.evict_blocks(self.ctx.tail_ids)


class AbortRequests(Step, order=30, paths=("abort",)):
    def run(self):
        ids = [r.request_id for r in self.ctx.requests]
        if ids:
            aborted = self.ctx.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
            self.ctx.engine._send_abort_outputs(aborted)


class RequeueRequests(Step, order=30, paths=("resume",)):
    def run(self):
        sched = self.ctx.scheduler
        stamp = time.monotonic()
        for req in reversed(self.ctx.requests):
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
