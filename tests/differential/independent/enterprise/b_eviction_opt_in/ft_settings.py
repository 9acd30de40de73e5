from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FaultToleranceSettings:
    #: evict KV written by the failed step from the prefix cache (experimental)
    quarantine_unconfirmed_kv: bool = False
    log_aborts: bool = True
