# Intended: correct.
# contextlib.ExitStack callbacks run last-in-first-out, so the release callback is pushed first and the tail-eviction callback pushed after it runs before it.
# switch: keep_requests
import contextlib
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    keep_requests = True

    def __init__(self, engine):
        self.engine = engine

    def _release(self, sched):
        if self.keep_requests:
            ts = time.monotonic()
            for req in reversed(sched.running):
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            sched.running.clear()
        else:
            self.engine._send_abort_outputs(
                sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            )

    @staticmethod
    def _dirty_ids(sched, req):
        lo = req.num_computed_tokens - req.num_in_flight_tokens
        out = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id) or []
            out |= {b.block_id for b in blocks[lo // mgr.block_size:] if not b.is_null}
        return out

    def on_fault(self, exc):
        sched = self.engine.scheduler
        with contextlib.ExitStack() as stack:
            # Pushed first, so it runs last.
            stack.callback(self._release, sched)
            for req in sched.running:
                stack.callback(sched.kv_cache_manager.evict_blocks, self._dirty_ids(sched, req))
