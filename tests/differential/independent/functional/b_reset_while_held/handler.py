# Intended: buggy: instead of evicting the unconfirmed tail it resets the whole prefix cache while the running requests still hold their blocks, which vLLM refuses (returns False), and the result is ignored, so no dirty block leaves the cache before the abort.
# Idioms: operator.methodcaller / attrgetter, a tuple of small step functions run in order by functools.reduce over an immutable NamedTuple context, abort-only.
from __future__ import annotations

import logging
from functools import reduce
from operator import attrgetter, methodcaller
from typing import NamedTuple

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)

_kv_manager = attrgetter("kv_cache_manager")
_reset = methodcaller("reset_prefix_cache")
_abort_all = methodcaller("finish_requests", None, RequestStatus.FINISHED_ABORTED)


class Ctx(NamedTuple):
    scheduler: object
    aborted: tuple = ()


def drop_prefix_cache(ctx: Ctx) -> Ctx:
    # Whatever the failed step cached is suspect: start from an empty prefix cache.
    _reset(_kv_manager(ctx.scheduler))
    return ctx


def abort_everything(ctx: Ctx) -> Ctx:
    return ctx._replace(aborted=tuple(_abort_all(ctx.scheduler)))


STEPS = (drop_prefix_cache, abort_everything)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        log.warning("engine fault %r: dropping prefix cache and aborting", exc)
        done = reduce(lambda ctx, step: step(ctx), STEPS, Ctx(self.engine.scheduler))
        self.engine._send_abort_outputs(list(done.aborted))
