"""Fault-recovery strategies, registered by mode through __init_subclass__."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


class Strategy:
    by_mode: dict[str, type["Strategy"]] = {}

    def __init_subclass__(cls, mode=None, **kw):
        super().__init_subclass__(**kw)
        if mode is not None:
            Strategy.by_mode[mode] = cls

    @classmethod
    def for_mode(cls, mode, engine):
        return cls.by_mode[mode](engine)

    def __init__(self, engine):
        self.engine = engine
        self.sched = engine.scheduler

    def unconfirmed_block_ids(self, requests):
        ids = set()
        for mgr in self.sched.kv_cache_manager.coordinator.single_type_managers:
            for r in requests:
                cut = (r.num_computed_tokens - r.num_in_flight_tokens) // mgr.block_size
                ids.update(b.block_id for b in mgr.req_to_blocks.get(r.request_id, [])[cut:] if not b.is_null)
        return ids

    def handle(self, requests):
        ids = self.unconfirmed_block_ids(requests)
        if ids:
            self.sched.kv_cache_manager.evict_blocks(ids)
        self.finish(requests)

    def finish(self, requests):
        raise NotImplementedError


class Abort(Strategy, mode="abort"):
    def finish(self, requests):
        if requests:
            aborted = self.sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)


class Resume(Strategy, mode="resume"):
    # Resume keeps the request's blocks so it re-hits its own prefix after
    # recovery: override handle() directly, there is nothing to scrub here.
    def handle(self, requests):
        stamp = time.monotonic()
        for r in reversed(requests):
            self.sched.running.remove(r)
            self.sched._preempt_request(r, stamp)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
