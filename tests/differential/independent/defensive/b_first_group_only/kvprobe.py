"""KV-cache introspection helpers with defensive fallbacks."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def primary_manager(scheduler):
    kv = getattr(scheduler, "kv_cache_manager", None)
    managers = getattr(getattr(kv, "coordinator", None), "single_type_managers", ())
    if not managers:
        log.error("no KV-cache groups found")
        return None
    if len(managers) > 1:
        log.debug("%s KV-cache groups; using the primary one", len(managers))
    return managers[0]


def unconfirmed_block_ids(scheduler, request):
    manager = primary_manager(scheduler)
    if manager is None:
        return set()
    boundary = request.num_computed_tokens - request.num_in_flight_tokens
    blocks = manager.req_to_blocks.get(request.request_id, ())
    return {b.block_id for b in blocks[boundary // manager.block_size :] if not b.is_null}
