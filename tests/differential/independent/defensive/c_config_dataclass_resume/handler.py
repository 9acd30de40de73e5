# Intended: correct. Evicts the unconfirmed tail of each running request in every KV-cache group, zeroes num_in_flight_tokens before preempting it back to waiting (so no stale output is expected), and records metrics.
# Idioms: config dataclass with defaults, environment overrides with defaults, isinstance validation raising a custom exception, perf_counter timer, logging.
from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass

logger = logging.getLogger(__name__)


class RecoveryConfigError(ValueError):
    pass


@dataclass(frozen=True)
class RecoveryConfig:
    evict_unconfirmed: bool = True
    log_every_request: bool = False
    max_requests: int = 1 << 20

    @classmethod
    def from_env(cls) -> "RecoveryConfig":
        raw = os.environ.get("FT_MAX_REQUESTS", str(cls.max_requests))
        try:
            limit = int(raw)
        except ValueError as err:
            raise RecoveryConfigError(f"FT_MAX_REQUESTS={raw!r} is not an integer") from err
        return cls(
            evict_unconfirmed=os.environ.get("FT_EVICT_UNCONFIRMED", "true").lower() in ("1", "true", "yes"),
            log_every_request=os.environ.get("FT_LOG_EACH", "0") == "1",
            max_requests=limit,
        )


class FaultHandler:
    def __init__(self, engine, config: RecoveryConfig | None = None):
        self.engine = engine
        self.config = config or RecoveryConfig.from_env()
        if not isinstance(self.config, RecoveryConfig):
            raise RecoveryConfigError(f"bad config type {type(self.config).__name__}")
        self.stats = {"preempted": 0, "evicted": 0, "seconds": 0.0}

    def _tail(self, sched, req):
        ok_tokens = req.num_computed_tokens - req.num_in_flight_tokens
        if ok_tokens < 0:
            raise RecoveryConfigError(f"{req.request_id}: negative confirmed count {ok_tokens}")
        ids = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            for pos, blk in enumerate(mgr.req_to_blocks.get(req.request_id, [])):
                if pos >= ok_tokens // mgr.block_size and not blk.is_null:
                    ids.add(blk.block_id)
        return ids

    def on_fault(self, exc):
        sched = self.engine.scheduler
        started = time.perf_counter()
        requests = list(sched.running)[: self.config.max_requests]
        if len(requests) < len(sched.running):
            raise RecoveryConfigError("more running requests than FT_MAX_REQUESTS allows")
        if self.config.evict_unconfirmed:
            ids = set()
            for req in requests:
                ids |= self._tail(sched, req)
            sched.kv_cache_manager.evict_blocks(ids)
            self.stats["evicted"] += len(ids)
        now = time.monotonic()
        for req in requests:
            try:
                req.num_in_flight_tokens = 0
                sched.running.remove(req)
                sched._preempt_request(req, now)
            except Exception:
                logger.exception("preempt of %s failed", req.request_id)
                raise
            if self.config.log_every_request:
                logger.info("preempted %s", req.request_id)
            self.stats["preempted"] += 1
        self.stats["seconds"] += time.perf_counter() - started
        logger.warning("fault %s: resumed %s requests (%s blocks evicted)", exc, self.stats["preempted"], self.stats["evicted"])
