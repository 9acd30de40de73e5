# Intended: correct. Unions the unconfirmed-tail block ids of every running request over all KV-cache groups with functools.reduce, evicts them, then aborts or (switch on) preempts and clears both in-flight counters.
# Idioms: functools.reduce set union, itertools.starmap over (request, group) pairs, itertools.product, kwargs config dict, switch attribute
# switch: resume_after_fault
import functools
import itertools
import time

from vllm.v1.request import RequestStatus

DEFAULTS = {"evict": True, "verbose": True, "status": RequestStatus.FINISHED_ABORTED}


def _tail_ids(request, gidx, mgr):
    """Block ids of `request` in group `gidx` that hold unconfirmed tokens."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    assert confirmed >= 0, f"negative confirmed boundary for {request.request_id}"
    lo = confirmed // mgr.block_size
    blocks = mgr.req_to_blocks.get(request.request_id) or []
    return {blk.block_id for blk in blocks[lo:] if not blk.is_null}


class FaultHandler:
    resume_after_fault = False

    def __init__(self, engine, **cfg):
        self.engine = engine
        self.cfg = {**DEFAULTS, **cfg}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        managers = list(enumerate(kvm.coordinator.single_type_managers))
        reqs = list(sched.running)
        if self.cfg.get("verbose", True):
            print(f"on_fault: {type(exc).__name__} with {len(reqs)} running, {len(managers)} kv groups")

        # step 1: dirty tail ids, all requests x all groups, folded into one set
        if self.cfg.get("evict", True):
            pairs = [(r, g, m) for r, (g, m) in itertools.product(reqs, managers)]
            per_pair = itertools.starmap(_tail_ids, pairs)
            dirty = functools.reduce(lambda acc, s: acc | s, per_pair, set())
            if dirty:
                kvm.evict_blocks(dirty)
            print(f"  evicted {len(dirty)} dirty tail blocks")

        # step 2: abort, or put everything back in the waiting queue
        if not self.resume_after_fault:
            gone = sched.finish_requests(None, self.cfg["status"])
            self.engine._send_abort_outputs(gone)
            return
        now = time.monotonic()
        for r in reversed(reqs):
            sched.running.remove(r)
            sched._preempt_request(r, now)
            # the lost step's output never arrives: nothing is in flight or stale
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
        print(f"  resumed {len(reqs)} requests")
