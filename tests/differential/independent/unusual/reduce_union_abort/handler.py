# Intended: correct.
# Unions every request's per-group unconfirmed tail (ids yielded by a generator using `yield from`) with functools.reduce(operator.or_), evicts them, then aborts everything.
import functools
import operator
from operator import attrgetter

from vllm.v1.request import RequestStatus

import tailgen


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        doomed = list(map(attrgetter("request_id"), sched.running))
        per_request = (frozenset(tailgen.unconfirmed_block_ids(kv, req)) for req in sched.running)
        dirty = functools.reduce(operator.or_, per_request, frozenset())
        if dirty:
            kv.evict_blocks(set(dirty))
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if doomed:
            self.engine._send_abort_outputs(aborted)
