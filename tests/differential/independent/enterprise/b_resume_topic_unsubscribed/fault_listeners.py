from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

from fault_topics import Topic, listens_to


@listens_to(Topic.ABORT)
class KVQuarantineListener:
    order = 0

    def on_event(self, engine, requests) -> None:
        kv = engine.scheduler.kv_cache_manager
        ids: set[int] = set()
        for r in requests:
            confirmed = r.num_computed_tokens - r.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks.get(r.request_id, [])[confirmed // mgr.block_size :] if not b.is_null)
        kv.evict_blocks(ids)


@listens_to(Topic.ABORT)
class AbortListener:
    order = 10

    def on_event(self, engine, requests) -> None:
        aborted = engine.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)


@listens_to(Topic.REQUEUE)
class RequeueListener:
    order = 10

    def on_event(self, engine, requests) -> None:
        sched = engine.scheduler
        ts = time.monotonic()
        for r in reversed(requests):
            sched.running.remove(r)
            sched._preempt_request(r, ts)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
