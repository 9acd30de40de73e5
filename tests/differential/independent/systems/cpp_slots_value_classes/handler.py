# Intended: correct. Builds a __slots__ TailSpan per request and KV-cache group, evicts exactly those spans, then preempts every running request and clears its in-flight and stale counters.
# Idioms: __slots__ value classes, @staticmethod factory, preallocated list of size n, reversed(), explicit del, type aliases, helper module
import time

from span import BlockId, TailSpan


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        live = list(sched.running)
        n_spans = len(live) * len(mgrs)
        spans = [None] * n_spans
        slot = 0
        for r in live:
            for gi, mgr in enumerate(mgrs):
                chain = mgr.req_to_blocks.get(r.request_id, ())
                spans[slot] = TailSpan.make(
                    r.request_id, gi, r.num_computed_tokens, r.num_in_flight_tokens, mgr.block_size, len(chain)
                )
                slot += 1
        victims: set[BlockId] = set()
        for sp in spans:
            if sp.empty():
                continue
            chain = mgrs[sp.group].req_to_blocks[sp.req_id]
            b = sp.first_block
            while b < sp.end_block:
                cell = chain[b]
                if not cell.is_null:
                    victims.add(cell.block_id)
                b += 1
        del spans
        if victims:
            kvm.evict_blocks(victims)
        stamp = time.monotonic()
        for r in reversed(live):
            sched.running.remove(r)
            sched._preempt_request(r, stamp)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
