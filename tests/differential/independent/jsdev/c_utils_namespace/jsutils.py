"""Lodash-ish helpers as one module-level utility object."""

from functools import reduce
from types import SimpleNamespace


def _get(obj, path, default=None):
    """Optional chaining: _get(a, "b.c.d") is a?.b?.c?.d ?? default."""
    for key in path.split("."):
        if obj is None:
            return default
        obj = obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)
    return default if obj is None else obj


utils = SimpleNamespace(
    get=_get,
    pipe=lambda *fns: lambda x: reduce(lambda acc, fn: fn(acc), fns, x),
    pluck=lambda key: lambda obj: getattr(obj, key),
    flatMap=lambda fn, xs: [y for x in xs for y in fn(x)],
    tap=lambda fn: lambda x: (fn(x), x)[1],
    each=lambda fn, xs: [fn(x) for x in xs] and None,
)
