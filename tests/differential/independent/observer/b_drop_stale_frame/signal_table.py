"""A module-level signal table: ``connect(name)`` decorates a receiver,
``send(name, **kw)`` calls every receiver of that name in order."""

_TABLE = {}


def connect(name):
    def deco(fn):
        _TABLE.setdefault(name, []).append(fn)
        return fn

    return deco


def send(name, **kwargs):
    return [fn(**kwargs) for fn in _TABLE.get(name, [])]
