"""Block ids of the unconfirmed tail, one list per KV-cache group."""
from operator import attrgetter

confirmed = lambda r: r.num_computed_tokens - r.num_in_flight_tokens  # noqa: E731
_id = attrgetter("block_id")


def tail_ids(kv, r):
    return [[*map(_id, filter(lambda b: not b.is_null,
                              m.req_to_blocks.get(r.request_id, ())[confirmed(r) // m.block_size:]))]
            for m in kv.coordinator.single_type_managers]
