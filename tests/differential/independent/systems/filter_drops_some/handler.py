# Intended: buggy: a filter keeps only requests with at most one block in flight (decode steps), so requests that faulted mid-prefill keep their dirty tail cached when everything is aborted.
# Idioms: filter returning (kept, skipped) tuple, generator helper module, guard clause with continue, three modules
import logging

from chooser import pick
from tail import tail_block_ids
from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        chosen, skipped = pick(list(sched.running))
        if skipped:
            log.debug("skipping %d requests with no single-block tail", skipped)
        ids = set()
        for cand in chosen:
            ids.update(tail_block_ids(mgrs, cand))
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
