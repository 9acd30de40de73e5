# Intended: generated handler g1_1000070: api=0.34 mode=resume site=inline ids=enumerate filter=is_null evict_call=methodcaller release_call=methodcaller reset=setattr_names drain=while_pop granularity=per_request flow=plain switch_style=dict_dispatch defect=ft008_none.
import operator
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            kv = sched.kv_cache_manager
            ids = set()
            for req in [req]:
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                for mgr in kv.coordinator.single_type_managers:
                    blocks = mgr.req_to_blocks[req.request_id]
                    first = confirmed // mgr.block_size
                    ids |= {b.block_id for i, b in enumerate(blocks) if i >= first and not b.is_null}
            operator.methodcaller("evict_blocks", ids)(kv)
            operator.methodcaller("_preempt_request", req, ts)(sched)
