"""A plan of what a fault dirtied: the unconfirmed tail of each running request."""
from typing import NamedTuple


class Tail(NamedTuple):
    rid: str
    start: int
    ids: frozenset

    @classmethod
    def of(cls, kv, r):
        c = r.num_computed_tokens - r.num_in_flight_tokens
        return cls(r.request_id, c, frozenset(b.block_id for m in kv.coordinator.single_type_managers
                                              for b in m.req_to_blocks.get(r.request_id, ())[c // m.block_size:]
                                              if not b.is_null))


def plan(kv, reqs):
    return {t.rid: t for t in (Tail.of(kv, r) for r in reqs)}
