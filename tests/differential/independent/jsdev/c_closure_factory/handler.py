# Intended: correct.
# Idioms: factory functions returning closures (makeTailFinder, makeEvictor, makeAborter),
# optional chaining written as `a and a.b and a.b.c`, destructuring of per-group tuples with
# zip(), a nullish default via `or`, arrow-style lambdas; abort-only handler.
from vllm.v1.request import RequestStatus


def makeTailFinder(kv):
    coordinator = kv and kv.coordinator
    sizes = (coordinator and [m.block_size for m in coordinator.single_type_managers]) or []

    def findTail(req):
        # get_block_ids(): one list of block ids per KV-cache group, in token order.
        per_group = kv.get_block_ids(req.request_id)
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        null_id = kv.block_pool.null_block.block_id
        return [
            bid
            for ids, size in zip(per_group, sizes)
            for bid in ids[confirmed // size:]
            if bid != null_id
        ]

    return findTail


def makeEvictor(kv):
    findTail = makeTailFinder(kv)

    def evict(reqs):
        doomed = {bid for req in reqs for bid in findTail(req)}
        doomed and kv.evict_blocks(doomed)
        return doomed

    return evict


def makeAborter(sched, onAborted=None):
    def abort(reqs):
        ids = [r.request_id for r in reqs]
        aborted = (ids and sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED)) or []
        onAborted and onAborted(aborted)
        return aborted

    return abort


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine and self.engine.scheduler
        if not sched:
            return []
        running = [*sched.running]
        evict = makeEvictor(sched.kv_cache_manager)
        abort = makeAborter(sched, getattr(self.engine, "_send_abort_outputs", None))
        evict(running)
        return abort(running)
