# Intended: correct.
# Idioms: closures that build stages, a pipeline of context -> context functions folded with functools.reduce over immutable mappingproxy contexts, chain.from_iterable, starmap, abort/resume switch.
# switch: resume_on_fault
from __future__ import annotations

import time
from functools import reduce
from itertools import chain, starmap
from types import MappingProxyType

from vllm.v1.request import RequestStatus


def _freeze(**kw):
    return MappingProxyType(kw)


def _extend(ctx, **kw):
    return MappingProxyType({**ctx, **kw})


def collect(ctx):
    sched = ctx["scheduler"]
    return _extend(
        ctx,
        requests=tuple(sched.running),
        groups=tuple(sched.kv_cache_manager.coordinator.single_type_managers),
    )


def tail_selector():
    """A stage that picks the unconfirmed tail of each (request, group)."""

    def tail(request, group):
        first = max(request.num_computed_tokens - request.num_in_flight_tokens, 0) // group.block_size
        return [b.block_id for b in group.req_to_blocks.get(request.request_id, ())[first:]
                if not b.is_null]

    def stage(ctx):
        pairs = ((r, g) for r in ctx["requests"] for g in ctx["groups"])
        return _extend(ctx, evict=frozenset(chain.from_iterable(starmap(tail, pairs))))

    return stage


def evictor():
    def stage(ctx):
        ctx["scheduler"].kv_cache_manager.evict_blocks(set(ctx["evict"]))
        return ctx
    return stage


def aborter(send):
    def stage(ctx):
        ids = [r.request_id for r in ctx["requests"]]
        send(ctx["scheduler"].finish_requests(ids, RequestStatus.FINISHED_ABORTED))
        return ctx
    return stage


def requeuer(clock=time.monotonic):
    def stage(ctx):
        sched, reqs = ctx["scheduler"], ctx["requests"]
        sched.running = [r for r in sched.running if r not in reqs]
        ts = clock()
        for r in reversed(reqs):
            sched._preempt_request(r, ts)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
        return ctx
    return stage


def run(stages, ctx):
    return reduce(lambda acc, st: st(acc), stages, ctx)


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def _stages(self):
        finish = requeuer() if self.resume_on_fault else aborter(self.engine._send_abort_outputs)
        return (collect, tail_selector(), evictor(), finish)

    def on_fault(self, exc):
        run(self._stages(), _freeze(scheduler=self.engine.scheduler, error=exc))
