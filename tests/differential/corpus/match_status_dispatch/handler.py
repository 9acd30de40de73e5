# Intended: correct.
# Dispatches with a match statement on the chosen recovery mode; both arms first evict the unconfirmed tail of every running request in every KV-cache group.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


def _tail_ids(scheduler, request):
    first_unconfirmed = request.num_computed_tokens - request.num_in_flight_tokens
    out = []
    for manager in scheduler.kv_cache_manager.coordinator.single_type_managers:
        idx = first_unconfirmed // manager.block_size
        out.extend(b.block_id for b in manager.req_to_blocks[request.request_id][idx:] if not b.is_null)
    return out


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        mode = "resume" if self.RESUME else "abort"
        match mode:
            case "abort":
                ids = {bid for r in scheduler.running for bid in _tail_ids(scheduler, r)}
                scheduler.kv_cache_manager.evict_blocks(ids)
                aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                self.engine._send_abort_outputs(aborted)
            case "resume":
                now = time.monotonic()
                pending = scheduler.running[:]
                scheduler.running.clear()
                for request in reversed(pending):
                    scheduler.kv_cache_manager.evict_blocks(set(_tail_ids(scheduler, request)))
                    scheduler._preempt_request(request, now)
                    request.num_stale_output_tokens = 0
                    request.num_in_flight_tokens = 0
            case _:
                raise ValueError(mode)
