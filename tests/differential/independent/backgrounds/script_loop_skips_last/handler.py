# Intended: buggy: the eviction loop runs to len(running) - 1 and never evicts the last running request's unconfirmed tail before everything is aborted.
# Idioms: script style: index arithmetic over a list, flags, a long procedural on_fault, manual set building.
from vllm.v1.request import RequestStatus

VERBOSE = False


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        running = scheduler.running
        groups = kv.coordinator.single_type_managers
        total = len(running)

        to_evict = set()
        for idx in range(total - 1):
            r = running[idx]
            good = r.num_computed_tokens - r.num_in_flight_tokens
            for grp in groups:
                lst = grp.req_to_blocks.get(r.request_id, [])
                first = good // grp.block_size
                for b in lst[first:]:
                    to_evict.add(b.block_id)
            if VERBOSE:
                print("req", r.request_id, "good tokens", good)

        if to_evict:
            kv.evict_blocks(to_evict)

        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        if VERBOSE:
            print("aborted", len(aborted), "after", exc)
