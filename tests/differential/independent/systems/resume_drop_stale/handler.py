# Intended: buggy: evicts the tail correctly but preempts with drop_stale_output=True, so the resumed request discards its first good output frame after recovery.
# Idioms: enum state for the request batch, while-index loop, reversed iteration, __slots__ value class
import enum
import time


class Mode(enum.Enum):
    EVICTING = "evicting"
    REQUEUEING = "requeueing"


class Cut:
    __slots__ = ("rid", "boundary")

    def __init__(self, rid, boundary):
        self.rid = rid
        self.boundary = boundary


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.mode = Mode.EVICTING

    def on_fault(self, exc):
        sched = self.engine.scheduler
        live = list(sched.running)
        cuts = [Cut(x.request_id, x.num_computed_tokens - x.num_in_flight_tokens) for x in live]
        out = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            i = 0
            while i < len(cuts):
                row = mgr.req_to_blocks.get(cuts[i].rid, ())
                for blk in row[cuts[i].boundary // mgr.block_size:]:
                    if not blk.is_null:
                        out.add(blk.block_id)
                i += 1
        if out:
            sched.kv_cache_manager.evict_blocks(out)
        self.mode = Mode.REQUEUEING
        now = time.monotonic()
        for x in reversed(live):
            sched.running.remove(x)
            sched._preempt_request(x, now, drop_stale_output=True)
