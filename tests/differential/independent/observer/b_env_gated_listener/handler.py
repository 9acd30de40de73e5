# Intended: buggy: the tail-eviction listener is only registered when the VLLM_FT_EVICT_DIRTY_KV environment variable is set, so with default settings nothing is evicted and the blocks written by the lost step stay in the prefix cache on both paths.
# Idioms: plugin bus with callbacks registered in __init__ depending on configuration, a payload dataclass, before_retire / retire events.
# switch: resume_mode
"""Fault handler whose optional behaviour is contributed as plugins."""

import os
import time
from dataclasses import dataclass

from vllm.v1.request import RequestStatus

from plugin_bus import PluginBus


def _flag(name, default="0"):
    return os.environ.get(name, default).lower() in ("1", "true", "yes")


@dataclass
class RetirePayload:
    scheduler: object
    requests: list


class FaultHandler:
    resume_mode = False

    def __init__(self, engine, evict_dirty_kv=None):
        self.engine = engine
        self.bus = PluginBus()
        if evict_dirty_kv is None:
            evict_dirty_kv = _flag("VLLM_FT_EVICT_DIRTY_KV")
        if evict_dirty_kv:
            self.bus.register("before_retire", self._evict_tail)
        self.bus.register("retire", self._retire)

    @staticmethod
    def _evict_tail(payload):
        kv = payload.scheduler.kv_cache_manager
        ids = set()
        for req in payload.requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id) or []
                ids.update(b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null)
        kv.evict_blocks(ids)

    def _retire(self, payload):
        sched = payload.scheduler
        if self.resume_mode:
            ts = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(
                [r.request_id for r in payload.requests], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        payload = RetirePayload(sched, list(sched.running))
        self.bus.emit("before_retire", payload)
        self.bus.emit("retire", payload)
