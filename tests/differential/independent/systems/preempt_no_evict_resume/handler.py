# Intended: buggy: the abort arm evicts the unconfirmed tail but the resume arm of the state machine goes straight to preempting (counters cleared) without evicting, so resumed requests re-hit dirty blocks.
# Idioms: enum-driven state machine with a transition table, __slots__ context, while-index loops, reversed
# switch: resume_requests
import enum
import time

from vllm.v1.request import RequestStatus


class St(enum.Enum):
    START = 0
    EVICT = 1
    ABORT = 2
    PREEMPT = 3
    END = 4


class Job:
    __slots__ = ("sched", "batch")

    def __init__(self, sched):
        self.sched = sched
        self.batch = list(sched.running)


def evict_tails(job):
    mgrs = job.sched.kv_cache_manager.coordinator.single_type_managers
    ids = set()
    i = 0
    while i < len(job.batch):
        rq = job.batch[i]
        i += 1
        edge = rq.num_computed_tokens - rq.num_in_flight_tokens
        for mgr in mgrs:
            row = mgr.req_to_blocks.get(rq.request_id, ())
            k = edge // mgr.block_size
            while k < len(row):
                if not row[k].is_null:
                    ids.add(row[k].block_id)
                k += 1
    if ids:
        job.sched.kv_cache_manager.evict_blocks(ids)


class FaultHandler:
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        job = Job(self.engine.scheduler)
        state = St.START
        while state is not St.END:
            if state is St.START:
                state = St.PREEMPT if self.resume_requests else St.EVICT
            elif state is St.EVICT:
                evict_tails(job)
                state = St.ABORT
            elif state is St.ABORT:
                self.engine._send_abort_outputs(job.sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
                state = St.END
            elif state is St.PREEMPT:
                ts = time.monotonic()
                for rq in reversed(job.batch):
                    job.sched.running.remove(rq)
                    job.sched._preempt_request(rq, ts)
                    rq.num_in_flight_tokens = 0
                    rq.num_stale_output_tokens = 0
                state = St.END
