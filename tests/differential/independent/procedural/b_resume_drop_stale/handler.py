# Intended: buggy: it preempts the running requests with drop_stale_output set, as reset_prefix_cache does, so each requeued request is marked to drop the lost step's output frame; that frame never arrives after a fault, and the first good frame after resume is thrown away instead.
# Idioms: a class of static-like module functions called with positional arguments (including the positional drop flag of _preempt_request), a while loop popping the running list, a flag variable, a module-level list of requeued ids reused across calls.
import time

REQUEUED = []


def evict_unconfirmed(kv_manager, managers, request):
    start_tok = request.num_computed_tokens - request.num_in_flight_tokens
    if start_tok < 0:
        start_tok = 0
    out = set()
    gi = 0
    while gi < len(managers):
        owned = managers[gi].req_to_blocks.get(request.request_id)
        if owned:
            bi = start_tok // managers[gi].block_size
            while bi < len(owned):
                if not owned[bi].is_null:
                    out.add(owned[bi].block_id)
                bi += 1
        gi += 1
    if out:
        kv_manager.evict_blocks(out)
        return True
    return False


def requeue_one(scheduler, request, ts, drop):
    scheduler._preempt_request(request, ts, drop)
    REQUEUED.append(request.request_id)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        del REQUEUED[:]
        i = 0
        while i < len(sched.running):
            evict_unconfirmed(kvm, mgrs, sched.running[i])
            i += 1
        ts = time.monotonic()
        while len(sched.running) > 0:
            req = sched.running.pop()
            # whatever the failed step produced must not reach the client
            requeue_one(sched, req, ts, True)
