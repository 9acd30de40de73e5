# Intended: buggy: the unconfirmed tail is evicted only before aborting; the resume path preempts without evicting it.
# Idioms: abc template-method base class in a helper module with an abstract hook, subclass override, abort/resume switch.
# switch: resume
"""Concrete recovery: evict the unconfirmed tail as the pre-abort hook."""

from __future__ import annotations

from base import RecoveryBase


class FaultHandler(RecoveryBase):
    def before_abort(self) -> None:
        kv = self.scheduler.kv_cache_manager
        dirty = set()
        for req in self.scheduler.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                dirty |= {b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size :]}
        kv.evict_blocks(dirty)
