# Intended: buggy: kvutil.py takes only the first KV-cache group's block ids (get_block_ids(...)[0]), so with a sliding-window group its dirty tail stays cached before the abort.
# Idioms: code split across modules (kvutil.py for block math, actions.py for abort), a thin handler class importing both.
from __future__ import annotations

import actions
import kvutil


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc) -> None:
        sched = self.engine.scheduler
        ids = set()
        for req in sched.running:
            ids |= kvutil.tail_block_ids(sched.kv_cache_manager, req)
        kvutil.evict(sched.kv_cache_manager, ids)
        actions.abort_everything(self.engine)
