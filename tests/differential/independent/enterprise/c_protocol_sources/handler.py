# Intended: correct.
# Idioms: typing.Protocol interfaces (BlockSource, Evictor), a factory class producing one BlockSource per KV-cache group, frozen dataclass value objects (TokenSpan), constructor injection; abort-only.
"""Abort-on-fault handler that invalidates the unconfirmed KV of every running request first."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from kv_sources import BlockSourceFactory, Evictor, ManagerEvictor, TokenSpan


class FaultHandler:
    def __init__(self, engine, sources: BlockSourceFactory | None = None, evictor: Evictor | None = None) -> None:
        self.engine = engine
        kv = engine.scheduler.kv_cache_manager
        self._sources = sources or BlockSourceFactory(kv)
        self._evictor = evictor or ManagerEvictor(kv)

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        targets = list(scheduler.running)
        doomed: set[int] = set()
        for source in self._sources.all_groups():
            for request in targets:
                span = TokenSpan.unconfirmed(request)
                doomed |= source.blocks_overlapping(request.request_id, span)
        self._evictor.evict(doomed)
        aborted = scheduler.finish_requests([r.request_id for r in targets], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
