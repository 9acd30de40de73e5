"""Which blocks a failed step may have left dirty, per running request."""


def dirty_by_request(kv, rs):
    return {r.request_id: [b.block_id for m in kv.coordinator.single_type_managers
                           for b in m.req_to_blocks.get(r.request_id, ())
                           [(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:] if not b.is_null]
            for r in rs}
