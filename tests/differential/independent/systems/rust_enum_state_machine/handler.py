# Intended: correct. An enum-driven state machine evicts each running request's unconfirmed tail in every KV-cache group, then either aborts or preempts with both in-flight counters cleared.
# Idioms: enum state machine, match-like dispatch table, __slots__ value class, while-index loops, sets converted with list()
# switch: resume_on_fault
import enum
import time

from vllm.v1.request import RequestStatus


class Phase(enum.Enum):
    SCAN = enum.auto()
    EVICT = enum.auto()
    ABORT = enum.auto()
    REQUEUE = enum.auto()
    DONE = enum.auto()


class Ctx:
    __slots__ = ("sched", "victims", "doomed")

    def __init__(self, sched):
        self.sched = sched
        self.victims = []
        self.doomed = set()


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        ctx = Ctx(self.engine.scheduler)
        phase = Phase.SCAN
        while phase is not Phase.DONE:
            phase = self._step(phase, ctx)

    def _step(self, phase, ctx):
        if phase is Phase.SCAN:
            ctx.victims = list(ctx.sched.running)
            return Phase.EVICT
        if phase is Phase.EVICT:
            self._scan_tails(ctx)
            if ctx.doomed:
                ctx.sched.kv_cache_manager.evict_blocks(set(list(ctx.doomed)))
            return Phase.REQUEUE if self.resume_on_fault else Phase.ABORT
        if phase is Phase.ABORT:
            gone = ctx.sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(gone)
            return Phase.DONE
        if phase is Phase.REQUEUE:
            self._requeue(ctx)
            return Phase.DONE
        raise AssertionError(f"unreachable phase {phase!r}")

    @staticmethod
    def _scan_tails(ctx):
        groups = ctx.sched.kv_cache_manager.coordinator.single_type_managers
        i = 0
        while i < len(ctx.victims):
            entry = ctx.victims[i]
            settled = entry.num_computed_tokens - entry.num_in_flight_tokens
            for grp in groups:
                chain = grp.req_to_blocks.get(entry.request_id, [])
                j = settled // grp.block_size
                while j < len(chain):
                    if not chain[j].is_null:
                        ctx.doomed.add(chain[j].block_id)
                    j += 1
            i += 1

    @staticmethod
    def _requeue(ctx):
        sched = ctx.sched
        now = time.monotonic()
        for entry in reversed(ctx.victims):
            sched.running.remove(entry)
            sched._preempt_request(entry, now)
            entry.num_in_flight_tokens = 0
            entry.num_stale_output_tokens = 0
