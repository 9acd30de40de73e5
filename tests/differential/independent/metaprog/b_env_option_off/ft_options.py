"""Feature switches for fault handling, read from the environment by a descriptor."""

from __future__ import annotations

import os

_TRUE = {"1", "true", "yes", "on"}


class EnvFlag:
    """A class attribute backed by ``VLLM_FT_<NAME>``; instance overrides win."""

    def __init__(self, default=False):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name
        self.env = f"VLLM_FT_{name.upper()}"

    def __get__(self, inst, owner=None):
        if inst is not None and self.name in inst.__dict__:
            return inst.__dict__[self.name]
        raw = os.environ.get(self.env)
        if raw is None:
            return self.default
        return raw.strip().lower() in _TRUE

    def __set__(self, inst, value):
        inst.__dict__[self.name] = bool(value)


class FaultOptions:
    evict_unconfirmed_tail = EnvFlag(default=False)
    notify_clients = EnvFlag(default=True)
