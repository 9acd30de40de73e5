# Intended: correct. Streams the unconfirmed tail blocks of all running requests over all KV-cache groups through nested generators, evicts them, then aborts all requests.
# Idioms: generators with yield from, enumerate, set built then list()/sorted(key=...), module constants in a separate module, three modules
from consts import ABORT_STATUS_NAME
from walk import ids_only, unconfirmed
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        by_arrival = sorted(sched.running, key=lambda r: r.arrival_time)
        bag = set(ids_only(unconfirmed(mgrs, by_arrival)))
        ordered = sorted(list(bag), key=lambda b: -b)
        if ordered:
            sched.kv_cache_manager.evict_blocks(set(ordered))
        status = getattr(RequestStatus, ABORT_STATUS_NAME)
        finished = sched.finish_requests(None, status)
        self.engine._send_abort_outputs(finished)
