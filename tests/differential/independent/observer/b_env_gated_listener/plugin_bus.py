"""Plugin-style listener registry: plugins register callbacks for events
through ``bus.register(event, callback)`` and ``bus.emit(event, payload)``
calls them in registration order."""


class PluginBus:
    def __init__(self):
        self.callbacks = {}

    def register(self, event, callback):
        self.callbacks.setdefault(event, []).append(callback)

    def emit(self, event, payload):
        for cb in self.callbacks.get(event, []):
            cb(payload)

    def has_listeners(self, event):
        return bool(self.callbacks.get(event))
