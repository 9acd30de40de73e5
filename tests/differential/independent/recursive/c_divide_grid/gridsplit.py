"""Divide and conquer over a (request x KV-cache group) grid."""


class TailGrid:
    def __init__(self, requests, managers):
        self.requests = requests
        self.managers = managers

    def cell(self, r, g):
        req, mgr = self.requests[r], self.managers[g]
        boundary = req.num_computed_tokens - req.num_in_flight_tokens
        held = mgr.req_to_blocks.get(req.request_id, [])
        return {b.block_id for b in held[boundary // mgr.block_size :] if not b.is_null}

    def collect(self, r0=0, r1=None, g0=0, g1=None):
        r1 = len(self.requests) if r1 is None else r1
        g1 = len(self.managers) if g1 is None else g1
        if r0 >= r1 or g0 >= g1:
            return set()
        if r1 - r0 == 1 and g1 - g0 == 1:
            return self.cell(r0, g0)
        # Split the longer side.
        if r1 - r0 >= g1 - g0:
            mid = (r0 + r1) // 2
            return self.collect(r0, mid, g0, g1) | self.collect(mid, r1, g0, g1)
        mid = (g0 + g1) // 2
        return self.collect(r0, r1, g0, mid) | self.collect(r0, r1, mid, g1)
