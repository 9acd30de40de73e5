"""A class decorator that gathers methods tagged as hooks into ordered phases."""

from __future__ import annotations

from collections import defaultdict

_TAG = "__fault_hook__"


def hook(phase, priority=50):
    def mark(fn):
        setattr(fn, _TAG, (phase, priority))
        return fn

    return mark


def with_hooks(cls):
    table = defaultdict(list)
    for klass in reversed(cls.__mro__):
        for name, member in vars(klass).items():
            tag = getattr(member, _TAG, None)
            if tag is not None:
                phase, priority = tag
                table[phase].append((priority, name))
    cls._hooks = {phase: [n for _, n in sorted(entries)] for phase, entries in table.items()}

    def run_phase(self, phase, *args):
        for name in type(self)._hooks.get(phase, ()):
            getattr(self, name)(*args)

    cls.run_phase = run_phase
    return cls
