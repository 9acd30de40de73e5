# Intended: buggy: the plan reads only the first KV-cache group's block ids, so with a second group (e.g. sliding-window attention) that group's blocks from the failed step stay in the prefix cache.
# Idioms: a planner class that returns a list of slotted dataclass operations (a union type),
# Idioms: executed by an isinstance-dispatching Executor in a helper module; abort/resume switch.
# switch: resume_after_fault
from __future__ import annotations

from ops_model import Abort, DropCached, Executor, Op, Preempt, ZeroCounters


class RecoveryPlanner:
    def __init__(self, scheduler, resume: bool):
        self.scheduler = scheduler
        self.resume = resume
        self.block_size = scheduler.block_size

    def tail_ids(self, req) -> list[int]:
        block_ids = self.scheduler.kv_cache_manager.get_block_ids(req.request_id)[0]
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        return block_ids[confirmed // self.block_size :]

    def plan(self) -> list[Op]:
        running = list(self.scheduler.running)
        ops: list[Op] = [DropCached(self.tail_ids(r)) for r in running]
        if self.resume:
            for r in reversed(running):
                ops += [Preempt(r.request_id), ZeroCounters(r.request_id)]
        else:
            ops.append(Abort([r.request_id for r in running]))
        return ops


class FaultHandler:
    resume_after_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        ops = RecoveryPlanner(self.engine.scheduler, self.resume_after_fault).plan()
        Executor(self.engine).run(ops)
