"""Hook registry keyed by hook name; a hook may be registered with a priority."""

import bisect


class Hooks:
    def __init__(self):
        self._table = {}

    def register(self, name, priority=50):
        def deco(fn):
            entries = self._table.setdefault(name, [])
            bisect.insort(entries, (priority, len(entries), fn), key=lambda e: e[:2])
            return fn

        return deco

    def fire(self, name, *args, **kwargs):
        for _, _, fn in self._table.get(name, []):
            fn(*args, **kwargs)
