"""A read-mostly view of a vLLM request, built from small descriptors."""

from __future__ import annotations


class Forward:
    """Descriptor reading (and optionally writing) one attribute of the wrapped request."""

    def __init__(self, field=None, *, writable=False):
        self.field = field
        self.writable = writable

    def __set_name__(self, owner, name):
        if self.field is None:
            self.field = name
        self.name = name

    def __get__(self, view, owner=None):
        if view is None:
            return self
        return getattr(view.request, self.field)

    def __set__(self, view, value):
        if not self.writable:
            raise AttributeError(f"{self.name} is read-only on {type(view).__name__}")
        setattr(view.request, self.field, value)


class Derived:
    """Descriptor computing a value from the view; cached on the instance."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner, name):
        self.slot = f"_cached_{name}"

    def __get__(self, view, owner=None):
        if view is None:
            return self
        try:
            return view.__dict__[self.slot]
        except KeyError:
            value = view.__dict__[self.slot] = self.fn(view)
            return value


class RequestView:
    request_id = Forward()
    computed = Forward("num_computed_tokens")
    in_flight = Forward("num_in_flight_tokens", writable=True)
    stale_output = Forward("num_stale_output_tokens", writable=True)

    def __init__(self, request):
        self.request = request

    @Derived
    def confirmed(self):
        """Tokens whose output came back: the start of the unconfirmed tail."""
        return self.computed - self.in_flight

    def first_dirty_block(self, block_size):
        return self.confirmed // block_size

    def forget_lost_step(self):
        self.in_flight = 0
        self.stale_output = 0
