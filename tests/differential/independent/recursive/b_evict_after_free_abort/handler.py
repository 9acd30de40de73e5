# Intended: buggy: on the abort path the requests are finished first and their tails are scrubbed afterwards, but finishing frees the blocks and drops the request's block list, so the scrub finds nothing and every dirty block stays cached; the resume path is right.
# Idioms: a recursive scrub over a list of requests (head recursion) and recursion over groups, shared by both paths; abort or resume.
# switch: resume_mode
"""Fault handler that scrubs dirty KV tails on abort and on resume."""

import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_mode = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if self.resume_mode:
            running = list(sched.running)
            self._scrub(sched, running)
            now = time.monotonic()
            for req in reversed(running):
                sched.running.remove(req)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(
                [r.request_id for r in sched.running], RequestStatus.FINISHED_ABORTED
            )
            self._scrub(sched, aborted)
            self.engine._send_abort_outputs(aborted)

    def _scrub(self, sched, requests):
        if not requests:
            return
        req = requests[0]
        managers = sched.kv_cache_manager.coordinator.single_type_managers
        ids = self._group_ids(req, managers, len(managers) - 1)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        self._scrub(sched, requests[1:])

    def _group_ids(self, req, managers, g):
        if g < 0:
            return set()
        m = managers[g]
        first = (req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size
        mine = {b.block_id for b in m.req_to_blocks.get(req.request_id, [])[first:] if not b.is_null}
        return mine | self._group_ids(req, managers, g - 1)
