# Intended: correct.
# Idioms: class-level lambda table keyed by the resume flag, walrus draining scheduler.running, set().union(*generator), chained assignment to reset both counters.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


def _tail(kv, r):
    c = r.num_computed_tokens - r.num_in_flight_tokens
    return {b.block_id for m in kv.coordinator.single_type_managers
            for b in m.req_to_blocks.get(r.request_id, ())[c // m.block_size:] if not b.is_null}


def _requeue(s, ts):
    while s.running and (r := s.running.pop()):
        s._preempt_request(r, ts)
        r.num_in_flight_tokens = r.num_stale_output_tokens = 0


class FaultHandler:
    RESUME = False
    _paths = {
        False: lambda s, e: e._send_abort_outputs(
            s.finish_requests([r.request_id for r in s.running], RequestStatus.FINISHED_ABORTED)),
        True: lambda s, e: _requeue(s, time.monotonic()),
    }

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        s.kv_cache_manager.evict_blocks(set().union(*(_tail(s.kv_cache_manager, r) for r in s.running)))
        self._paths[self.RESUME](s, self.engine)
