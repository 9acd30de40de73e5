# Intended: buggy: takes num_computed_tokens as the confirmed boundary (forgets to subtract num_in_flight_tokens), so the tail block that the failed step filled is skipped and stays cached when requests are aborted.
# Idioms: @staticmethod utilities on a namespace class, divmod returning two values, enumerate, sorted() with key, set then list()
from vllm.v1.request import RequestStatus


class Geometry:
    @staticmethod
    def locate(token: int, block_size: int):
        return divmod(token, block_size)

    @staticmethod
    def first_dirty(request, block_size: int) -> int:
        blk, off = Geometry.locate(request.num_computed_tokens, block_size)
        return blk


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        found = set()
        for rq in sorted(sched.running, key=lambda r: r.request_id):
            for _gi, mgr in enumerate(mgrs):
                row = mgr.req_to_blocks.get(rq.request_id, ())
                for pos, blk in enumerate(row):
                    if pos < Geometry.first_dirty(rq, mgr.block_size) or blk.is_null:
                        continue
                    found.add(blk.block_id)
        victims = list(found)
        if victims:
            sched.kv_cache_manager.evict_blocks(set(victims))
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
