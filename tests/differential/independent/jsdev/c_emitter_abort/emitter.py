"""A tiny Node-style EventEmitter: on(), once(), off(), emit()."""

from collections import defaultdict


class EventEmitter:
    def __init__(self):
        self._listeners = defaultdict(list)

    def on(self, event, listener):
        self._listeners[event].append(listener)
        return self

    def once(self, event, listener):
        def wrapper(*args, **kwargs):
            self.off(event, wrapper)
            return listener(*args, **kwargs)

        return self.on(event, wrapper)

    def off(self, event, listener):
        self._listeners[event] = [fn for fn in self._listeners[event] if fn is not listener]
        return self

    def listener_count(self, event):
        return len(self._listeners.get(event, []))

    def emit(self, event, *args, **kwargs):
        # Copy first: a once() listener removes itself while we iterate.
        listeners = list(self._listeners.get(event, []))
        for listener in listeners:
            listener(*args, **kwargs)
        return len(listeners) > 0
