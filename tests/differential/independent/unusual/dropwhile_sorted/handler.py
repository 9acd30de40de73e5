# Intended: correct.
# Skips each group's confirmed prefix with itertools.dropwhile over enumerate(), filters the null padding block out with filter(lambda ...), and visits requests sorted by key.
from itertools import dropwhile
from operator import attrgetter

from vllm.v1.request import RequestStatus


def _tail(blocks, first):
    return [blk for _, blk in dropwhile(lambda pair: pair[0] < first, enumerate(blocks))]


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        ordered = sorted(sched.running, key=attrgetter("num_in_flight_tokens"), reverse=True)
        dirty = set()
        for req in ordered:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                live = filter(lambda b: not b.is_null, _tail(blocks, confirmed // mgr.block_size))
                dirty.update(map(attrgetter("block_id"), live))
        if dirty:
            kv.evict_blocks(dirty)
        aborted = sched.finish_requests([r.request_id for r in ordered], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
