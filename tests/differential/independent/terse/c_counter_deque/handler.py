# Intended: correct.
# Idioms: collections.Counter of evictions per group, deque snapshot of running popped with a walrus argument, list of (group, id) pairs split with operator.itemgetter, enumerate over managers.
# switch: resume
import logging
import time
from collections import Counter, deque
from operator import itemgetter

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine, self.evicted = engine, Counter()

    def _evict(self, kv, reqs):
        pairs = [(g, b.block_id) for r in reqs for g, m in enumerate(kv.coordinator.single_type_managers)
                 for b in m.req_to_blocks.get(r.request_id, ())[(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]
                 if not b.is_null]
        self.evicted.update(map(itemgetter(0), pairs))
        kv.evict_blocks({*map(itemgetter(1), pairs)})

    def on_fault(self, exc):
        s = self.engine.scheduler
        self._evict(s.kv_cache_manager, reqs := deque(s.running))
        if self.resume:
            s.running.clear()
            ts = time.monotonic()
            while reqs:
                s._preempt_request(r := reqs.pop(), ts)
                r.num_in_flight_tokens = r.num_stale_output_tokens = 0
        else:
            self.engine._send_abort_outputs(s.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED))
        log.warning("fault %r: evicted unconfirmed blocks per group %s", exc, dict(self.evicted))
