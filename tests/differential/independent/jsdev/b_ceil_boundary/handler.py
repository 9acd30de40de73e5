# Intended: buggy: it finds the first dirty block with a ceiling division (Math.ceil), so when the confirmed boundary falls inside a block that block is skipped and stays cached although its tail tokens were never computed.
# Idioms: a Math-like helper object (SimpleNamespace with ceil/floor), fluent chaining on a
# small query object (from_(...).where(...).toIds()), lambdas as predicates, tuple
# destructuring, abort/resume switch.
# switch: resumeMode
import math
import time
from types import SimpleNamespace

from vllm.v1.request import RequestStatus

Math = SimpleNamespace(ceil=lambda x: int(math.ceil(x)), floor=lambda x: int(math.floor(x)), max=max)


class BlockQuery:
    def __init__(self, blocks):
        self._items = list(enumerate(blocks))

    def where(self, pred):
        self._items = [(i, b) for i, b in self._items if pred(i, b)]
        return self

    def toIds(self):
        return [b.block_id for _, b in self._items]


from_ = BlockQuery


class FaultHandler:
    resumeMode = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        reqs = list(sched.running)
        if not reqs:
            return

        dirty = set()
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                first = Math.ceil(confirmed / mgr.block_size)
                dirty.update(
                    from_(mgr.req_to_blocks.get(req.request_id, []))
                    .where(lambda i, b: i >= first)
                    .where(lambda i, b: not b.is_null)
                    .toIds()
                )
        dirty and kv.evict_blocks(dirty)

        if not self.resumeMode:
            aborted = sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        now = time.monotonic()
        for req in reversed(reqs):
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens, req.num_stale_output_tokens = 0, 0
