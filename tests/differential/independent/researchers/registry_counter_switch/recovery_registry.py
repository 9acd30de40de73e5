"""Module-level registry of recovery configs (one per deployment profile)."""

REGISTRY = {}
STATS = {"faults": 0}


def register(name, **cfg):
    REGISTRY[name] = dict(cfg)
    return REGISTRY[name]


def lookup(name):
    return REGISTRY.get(name, REGISTRY["default"])


register("default", evict=True, reset_counters=True, log_every=1)
register("bench", evict=True, reset_counters=True, log_every=100)
