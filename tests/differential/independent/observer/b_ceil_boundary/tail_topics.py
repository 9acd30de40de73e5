"""Topic constants and a minimal broker for the fault path."""

TAIL_FOUND = "kv/tail/found"
TAIL_EVICT = "kv/tail/evict"
REQUESTS_ABORT = "requests/abort"


class Broker:
    def __init__(self):
        self.subscribers = {}

    def subscribe(self, topic, callback):
        self.subscribers.setdefault(topic, []).append(callback)
        return lambda: self.subscribers[topic].remove(callback)

    def publish(self, topic, message):
        for cb in tuple(self.subscribers.get(topic, ())):
            cb(message)
