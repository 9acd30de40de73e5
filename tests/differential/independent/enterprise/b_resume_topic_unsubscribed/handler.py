# Intended: buggy: the KV quarantine listener is subscribed only to the abort topic, so on the resume path no eviction happens at all and the resumed requests (or any request sharing their prefix) hit the blocks the failed step cached.
# Idioms: observer pattern with a topic-based publisher, listeners subscribed via a decorator into a module-level registry at import time, an Enum of topics, the abort/resume switch choosing the topic to publish.
# switch: RESUME_REQUESTS
"""Publishes the fault on a topic; listeners registered for that topic do the work."""

from __future__ import annotations

from fault_topics import Topic, publish
import fault_listeners  # noqa: F401  (registers listeners)


class FaultHandler:
    RESUME_REQUESTS = False

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def topic(self) -> Topic:
        return Topic.REQUEUE if self.RESUME_REQUESTS else Topic.ABORT

    def on_fault(self, exc: Exception) -> None:
        publish(self.topic, self.engine, list(self.engine.scheduler.running))
