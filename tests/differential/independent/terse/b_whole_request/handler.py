# Intended: buggy: it evicts every block the faulted requests hold, not just the unconfirmed tail, so the clean prefix written by earlier successful steps is dropped from the prefix cache too.
# Idioms: collections.Counter of blocks per request, chain.from_iterable over coordinator.get_blocks tuples, operator.methodcaller, abort only.
import logging
from collections import Counter
from itertools import chain
from operator import methodcaller

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        held = {r.request_id: [b.block_id for b in chain.from_iterable(kv.coordinator.get_blocks(r.request_id)) if not b.is_null]
                for r in s.running}
        kv.evict_blocks({*chain.from_iterable(held.values())})
        log.info("fault %r: evicted %s", exc, Counter({k: len(v) for k, v in held.items()}).most_common())
        self.engine._send_abort_outputs(s.finish_requests(held, RequestStatus.FINISHED_ABORTED))
