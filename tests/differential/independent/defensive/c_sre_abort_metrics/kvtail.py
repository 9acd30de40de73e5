"""Which blocks of a request were written by the step whose output never came back."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


class TailLookupError(RuntimeError):
    """The scheduler does not expose what the tail lookup needs."""


def _managers(scheduler):
    kv = getattr(scheduler, "kv_cache_manager", None)
    coordinator = getattr(kv, "coordinator", None)
    managers = getattr(coordinator, "single_type_managers", None)
    if managers is None:
        raise TailLookupError("scheduler has no per-group KV-cache managers")
    return managers


def unconfirmed_tail_ids(scheduler, request) -> set:
    """Block ids covering [computed - in_flight, computed) in every KV-cache group."""
    computed = int(getattr(request, "num_computed_tokens", 0) or 0)
    in_flight = int(getattr(request, "num_in_flight_tokens", 0) or 0)
    confirmed = max(computed - in_flight, 0)
    found: set = set()
    for manager in _managers(scheduler):
        blocks = manager.req_to_blocks.get(request.request_id) or []
        first = confirmed // manager.block_size
        for block in blocks[first:]:
            if getattr(block, "is_null", False):
                continue
            found.add(block.block_id)
    log.debug("request %s: confirmed=%s tail blocks=%s", request.request_id, confirmed, sorted(found))
    return found
