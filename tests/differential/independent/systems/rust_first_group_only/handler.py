# Intended: buggy: evicts the unconfirmed tail only in the first KV-cache group (single_type_managers[0]), leaving the sliding-window group's dirty blocks cached, then aborts.
# Idioms: Option-like None checks, enum for outcome, while-index loops, __slots__ record, set to list
import enum

from vllm.v1.request import RequestStatus


class Outcome(enum.IntEnum):
    OK = 0
    NOTHING = 1


class Tail:
    __slots__ = ("rid", "lo")

    def __init__(self, rid, lo):
        self.rid = rid
        self.lo = lo


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    @staticmethod
    def _evict(sched) -> Outcome:
        primary = sched.kv_cache_manager.coordinator.single_type_managers[0]
        tails = []
        for rq in sched.running:
            tails.append(Tail(rq.request_id, (rq.num_computed_tokens - rq.num_in_flight_tokens) // primary.block_size))
        picked = set()
        i = 0
        while i < len(tails):
            t = tails[i]
            row = primary.req_to_blocks.get(t.rid, ())
            j = t.lo
            while j < len(row):
                if not row[j].is_null:
                    picked.add(row[j].block_id)
                j += 1
            i += 1
        if not picked:
            return Outcome.NOTHING
        sched.kv_cache_manager.evict_blocks(set(list(picked)))
        return Outcome.OK

    def on_fault(self, exc):
        sched = self.engine.scheduler
        _ = self._evict(sched)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
