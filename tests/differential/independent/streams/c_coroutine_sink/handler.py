# Intended: correct.
# Idioms: coroutine consumers primed with next() by a decorator and fed with send(); a None sent as flush marker makes each sink apply its batch; eviction sink flushed before the abort sink.
"""Abort-on-fault handler built from two send()-driven coroutines.

``block_sink`` gathers block ids and evicts them from the prefix cache when it
is sent ``None``; ``abort_sink`` gathers request ids and aborts them the same
way.  The producer pushes into both and flushes them in that order, so the
unconfirmed tail is out of the prefix cache before any block is freed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator
from typing import Any

from vllm.v1.request import RequestStatus

Sink = Generator[Any, Any, None]


def primed(fn: Callable[..., Sink]) -> Callable[..., Sink]:
    """Advance a fresh coroutine to its first ``yield`` so it can take send()."""

    @functools.wraps(fn)
    def start(*args: Any, **kwargs: Any) -> Sink:
        coro = fn(*args, **kwargs)
        next(coro)
        return coro

    return start


@primed
def block_sink(kv_cache_manager) -> Sink:
    batch: set[int] = set()
    result = None
    while True:
        item = yield result
        result = None
        if item is None:
            if batch:
                kv_cache_manager.evict_blocks(batch)
            result, batch = len(batch), set()
        else:
            batch.add(item)


@primed
def abort_sink(scheduler, on_aborted: Callable[[list], None]) -> Sink:
    ids: list[str] = []
    result = None
    while True:
        item = yield result
        result = None
        if item is None:
            aborted = scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
            on_aborted(aborted)
            result, ids = aborted, []
        else:
            ids.append(item)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        evict = block_sink(kv)
        abort = abort_sink(scheduler, self.engine._send_abort_outputs)
        try:
            for req in list(scheduler.running):
                confirmed = max(req.num_computed_tokens - req.num_in_flight_tokens, 0)
                for mgr in kv.coordinator.single_type_managers:
                    blocks = mgr.req_to_blocks.get(req.request_id, [])
                    for block in blocks[confirmed // mgr.block_size :]:
                        if not block.is_null:
                            evict.send(block.block_id)
                abort.send(req.request_id)
            evict.send(None)  # flush: evict the tails first ...
            abort.send(None)  # ... then free the blocks
        finally:
            evict.close()
            abort.close()
