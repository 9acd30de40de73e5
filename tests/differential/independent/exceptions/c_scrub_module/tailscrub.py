"""Dropping a request's unconfirmed KV tail from the prefix cache."""

from __future__ import annotations


class ScrubError(Exception):
    """Base of the scrub errors."""


class NothingToScrub(ScrubError):
    """The request holds no block at or after its confirmed boundary."""


class RequestGone(ScrubError):
    """The request is no longer known to the scheduler."""


def confirmed_tokens(request) -> int:
    return max(0, request.num_computed_tokens - request.num_in_flight_tokens)


def scrub_tail(scheduler, request, confirmed: int) -> int:
    """Evict, in every KV-cache group, the blocks from the one holding token
    ``confirmed`` onwards.  Returns how many blocks were evicted."""
    if request.request_id not in scheduler.requests:
        raise RequestGone(request.request_id)
    kv = scheduler.kv_cache_manager
    victims: set[int] = set()
    for mgr in kv.coordinator.single_type_managers:
        owned = mgr.req_to_blocks.get(request.request_id)
        if not owned:
            continue
        victims.update(b.block_id for b in owned[confirmed // mgr.block_size :] if not b.is_null)
    if not victims:
        raise NothingToScrub(request.request_id)
    kv.evict_blocks(victims)
    return len(victims)
