# Intended: correct.
# Idioms: classes assembled at import time with type() from a base and a dict of functions, methods picked with getattr on f-string names, a resume flag living on the built class.
# switch: RESUME
"""The handler class is built with type() from shared pieces and a per-path method."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


def _init(self, engine):
    self.engine = engine


def _stale_block_ids(self, scheduler, requests):
    ids = set()
    for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
        for req in requests:
            cut = (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size
            ids.update(b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[cut:] if not b.is_null)
    return ids


def _on_fault(self, exc):
    scheduler = self.engine.scheduler
    requests = list(scheduler.running)
    ids = self.stale_block_ids(scheduler, requests)
    if ids:
        scheduler.kv_cache_manager.evict_blocks(ids)
    mode = "resume" if self.RESUME else "abort"
    getattr(self, f"recover_by_{mode}")(scheduler, requests)


def _recover_by_abort(self, scheduler, requests):
    if not requests:
        return
    aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
    self.engine._send_abort_outputs(aborted)


def _recover_by_resume(self, scheduler, requests):
    stamp = time.monotonic()
    for req in reversed(requests):
        scheduler.running.remove(req)
        req.num_in_flight_tokens = 0  # zero before the preempt copies it into the stale count
        scheduler._preempt_request(req, stamp)
        req.num_stale_output_tokens = 0


_Base = type(
    "_FaultHandlerBase",
    (),
    {"__init__": _init, "stale_block_ids": _stale_block_ids, "on_fault": _on_fault, "RESUME": False},
)

FaultHandler = type(
    "FaultHandler",
    (_Base,),
    {
        "__module__": __name__,
        "__doc__": "Evicts the unconfirmed tail, then aborts or requeues running requests.",
        **{name[1:]: fn for name, fn in globals().items() if name.startswith("_recover_by_")},
    },
)
