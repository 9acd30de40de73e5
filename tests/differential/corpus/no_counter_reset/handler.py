# Intended: bug: resume path preempts without resetting num_in_flight_tokens / num_stale_output_tokens, so each resumed request waits for stale output of the failed step that never arrives (hang).
# Evicts the per-group unconfirmed tail for every running request, then aborts or preempts depending on the switch.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


def _evict_tails(scheduler):
    kvm = scheduler.kv_cache_manager
    for req in scheduler.running:
        start_tok = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kvm.coordinator.single_type_managers:
            kvm.evict_blocks(
                {b.block_id for b in mgr.req_to_blocks[req.request_id][start_tok // mgr.block_size:] if not b.is_null}
            )


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        _evict_tails(scheduler)
        if self.RESUME:
            ts = time.monotonic()
            for req in reversed(scheduler.running):
                scheduler._preempt_request(req, ts)
            scheduler.running = []
        else:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
