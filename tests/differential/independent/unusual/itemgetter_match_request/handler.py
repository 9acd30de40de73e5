# Intended: correct.
# Reads the confirmed boundary with a match statement over Request class patterns (with a guard), slices each group's id list with operator.itemgetter(slice(...)), and pairs id lists with block sizes via zip.
from operator import attrgetter, itemgetter

from vllm.v1.request import Request, RequestStatus


def confirmed_tokens(req):
    match req:
        case Request(num_computed_tokens=int(done), num_in_flight_tokens=int(pending)) if pending > 0:
            return done - pending
        case Request(num_computed_tokens=int(done)):
            return done
    raise TypeError(f"not a request: {req!r}")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        sizes = list(map(attrgetter("kv_cache_spec.block_size"), kv.kv_cache_config.kv_cache_groups))
        null_id = kv.block_pool.null_block.block_id
        dirty = set()
        for req in sched.running:
            boundary = confirmed_tokens(req)
            for ids, size in zip(kv.get_block_ids(req.request_id), sizes, strict=True):
                dirty.update(itemgetter(slice(boundary // size, None))(ids))
        dirty.discard(null_id)
        kv.evict_blocks(dirty)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
