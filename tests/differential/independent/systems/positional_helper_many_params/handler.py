# Intended: correct. A many-parameter positional helper appends each request's unconfirmed tail block ids per KV-cache group into a caller-owned output list; the union is evicted before every request is aborted.
# Idioms: helper with many positional parameters, out-parameter accumulation, module-level constants, type aliases, while-index loops
from typing import List

from vllm.v1.request import RequestStatus

IdList = List[int]
ABORT = RequestStatus.FINISHED_ABORTED
FIRST_GROUP = 0


def append_tail(out, rid, computed, in_flight, block_size, table, skip_null):
    blocks = table.get(rid)
    if blocks is None:
        return 0
    pos = (computed - in_flight) // block_size
    added = 0
    while pos < len(blocks):
        b = blocks[pos]
        pos += 1
        if skip_null and b.is_null:
            continue
        out.append(b.block_id)
        added += 1
    return added


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kvm = s.kv_cache_manager
        tables = kvm.coordinator.single_type_managers
        acc: IdList = []
        g = FIRST_GROUP
        while g < len(tables):
            t = tables[g]
            k = 0
            while k < len(s.running):
                q = s.running[k]
                append_tail(acc, q.request_id, q.num_computed_tokens, q.num_in_flight_tokens, t.block_size, t.req_to_blocks, True)
                k += 1
            g += 1
        if len(acc) != 0:
            kvm.evict_blocks(set(acc))
        self.engine._send_abort_outputs(s.finish_requests(None, ABORT))
