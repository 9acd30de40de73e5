"""Token-span descriptors for vLLM requests."""

from __future__ import annotations


class TokenCount:
    """Reads an integer token counter off ``instance.request``."""

    def __set_name__(self, owner, name):
        self.attr = f"num_{name}_tokens"

    def __get__(self, inst, owner=None):
        if inst is None:
            return self
        return getattr(inst.request, self.attr)

    def __set__(self, inst, value):
        setattr(inst.request, self.attr, int(value))


class BlockSpan:
    """Per-block-size indices derived from a request's counters."""

    def __init__(self, request):
        self.request = request

    computed = TokenCount()
    in_flight = TokenCount()
    stale_output = TokenCount()

    @property
    def confirmed(self):
        return self.computed - self.in_flight

    def first_unconfirmed_block(self, block_size):
        # Blocks are whole units of work: round the confirmed count up to the
        # next block so a partly confirmed block counts as confirmed.
        return -(-self.confirmed // block_size)
