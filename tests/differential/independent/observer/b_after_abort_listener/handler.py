# Intended: buggy: the tail evictor listens to the after_abort event, so it reads req_to_blocks after finish_requests has freed the requests and popped their block lists, finds no blocks and evicts nothing.
# Idioms: a dict of event name -> listener list on the handler, a subscribe method, an event dataclass carrying the aborted requests and their confirmed boundaries, listeners registered in __init__.
"""Abort-on-fault handler that cleans the prefix cache once requests are gone.

The boundaries are captured before the abort (the requests' counters are
still meaningful then) and handed to the after_abort listeners.
"""

from dataclasses import dataclass, field

from vllm.v1.request import RequestStatus


@dataclass
class AbortEvent:
    request_ids: list
    confirmed: dict = field(default_factory=dict)
    aborted: list = field(default_factory=list)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.listeners = {"before_abort": [], "after_abort": []}
        self.subscribe("after_abort", self._notify_clients)
        self.subscribe("after_abort", self._evict_unconfirmed)

    def subscribe(self, name, fn):
        self.listeners[name].append(fn)

    def _emit(self, name, event):
        for fn in self.listeners[name]:
            fn(event)

    def _notify_clients(self, event):
        self.engine._send_abort_outputs(event.aborted)

    def _evict_unconfirmed(self, event):
        kv = self.engine.scheduler.kv_cache_manager
        ids = set()
        for rid in event.request_ids:
            start = event.confirmed[rid]
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(rid) or []
                ids.update(b.block_id for b in blocks[start // mgr.block_size:] if not b.is_null)
        kv.evict_blocks(ids)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        event = AbortEvent([r.request_id for r in sched.running])
        event.confirmed = {
            r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in sched.running
        }
        self._emit("before_abort", event)
        event.aborted = sched.finish_requests(event.request_ids, RequestStatus.FINISHED_ABORTED)
        self._emit("after_abort", event)
