# Intended: correct.
# Idioms: hook lists stored on the handler in __init__ (before_preempt / after_preempt), hooks fired per request by the handler, add_hook registration method.
"""Resume-on-fault handler: every running request goes back to waiting.

Per request the handler fires ``before_preempt`` hooks, preempts, then fires
``after_preempt`` hooks.  The default hooks evict the unconfirmed tail before
the preempt and clear the lost step's counters after it.
"""

import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.hooks = {"before_preempt": [], "after_preempt": []}
        self.add_hook("before_preempt", self._evict_tail)
        self.add_hook("after_preempt", self._forget_lost_step)

    def add_hook(self, name, fn):
        self.hooks[name].append(fn)

    def _fire(self, name, request):
        for fn in self.hooks[name]:
            fn(request)

    def _evict_tail(self, request):
        kv = self.engine.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        dirty = set()
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(request.request_id) or []
            idx = confirmed // mgr.block_size
            while idx < len(blocks):
                if not blocks[idx].is_null:
                    dirty.add(blocks[idx].block_id)
                idx += 1
        if dirty:
            kv.evict_blocks(dirty)

    def _forget_lost_step(self, request):
        # _preempt_request copies num_in_flight_tokens into
        # num_stale_output_tokens; the lost frame never drains them.
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        ts = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            self._fire("before_preempt", request)
            scheduler._preempt_request(request, ts)
            self._fire("after_preempt", request)
