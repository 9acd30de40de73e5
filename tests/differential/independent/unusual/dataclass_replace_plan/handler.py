# Intended: correct.
# Builds a frozen per-request TailSpan and specialises it per KV-cache group with dataclasses.replace, clamps the boundary with min/max, turns it into ids with range(first, last), and forwards the release call through *args/**kwargs.
# switch: keep_requests
import time
from dataclasses import dataclass, replace

from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class TailSpan:
    request_id: str
    start_token: int
    end_token: int
    group: int = 0
    block_size: int = 1

    @property
    def block_range(self):
        first = self.start_token // self.block_size
        last = -(-self.end_token // self.block_size)
        return range(first, last)


def plan(request, managers):
    computed = request.num_computed_tokens
    start = max(0, min(computed, computed - request.num_in_flight_tokens))
    base = TailSpan(request.request_id, start, computed)
    return [replace(base, group=g, block_size=m.block_size) for g, m in enumerate(managers)]


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.keep_requests = False

    def _call(self, name, *args, **kwargs):
        return getattr(self.engine.scheduler, name)(*args, **kwargs)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        ids = set()
        for req in sched.running:
            for span in plan(req, managers):
                blocks = managers[span.group].req_to_blocks.get(span.request_id, [])
                r = span.block_range
                for i in range(r.start, min(r.stop, len(blocks))):
                    if not blocks[i].is_null:
                        ids.add(blocks[i].block_id)
        sched.kv_cache_manager.evict_blocks(ids)
        if self.keep_requests:
            ts = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                self._call("_preempt_request", req, ts)
                req.num_in_flight_tokens, req.num_stale_output_tokens = 0, 0
        else:
            aborted = self._call("finish_requests", None, finished_status=RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
