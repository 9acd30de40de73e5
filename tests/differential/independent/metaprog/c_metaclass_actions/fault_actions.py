"""Recovery actions, registered by name through a metaclass."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


class ActionMeta(type):
    registry: dict[str, type] = {}

    def __new__(mcs, name, bases, namespace, **kwargs):
        cls = super().__new__(mcs, name, bases, namespace)
        key = namespace.get("key")
        if key:
            mcs.registry[key] = cls
        return cls

    @classmethod
    def lookup(mcs, key):
        try:
            return mcs.registry[key]
        except KeyError:
            raise LookupError(f"no recovery action named {key!r}") from None


class Action(metaclass=ActionMeta):
    key = None

    def __init__(self, engine):
        self.engine = engine
        self.scheduler = engine.scheduler

    def tail_block_ids(self, request):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        ids = set()
        for mgr in self.scheduler.kv_cache_manager.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(request.request_id, [])
            for block in blocks[confirmed // mgr.block_size :]:
                if not block.is_null:
                    ids.add(block.block_id)
        return ids

    def scrub(self, requests):
        ids = set().union(*(self.tail_block_ids(r) for r in requests)) if requests else set()
        if ids:
            self.scheduler.kv_cache_manager.evict_blocks(ids)

    def __call__(self, requests):
        self.scrub(requests)
        self.apply(requests)

    def apply(self, requests):
        raise NotImplementedError


class AbortAll(Action):
    key = "abort"

    def apply(self, requests):
        aborted = self.scheduler.finish_requests(
            [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
        )
        sender = getattr(self.engine, "_send_abort_outputs", None)
        if sender is not None:
            sender(aborted)


class RequeueAll(Action):
    key = "resume"

    def apply(self, requests):
        now = time.monotonic()
        running = self.scheduler.running
        while running:
            req = running.pop()
            self.scheduler._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
